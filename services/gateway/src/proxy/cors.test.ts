import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from '@jest/globals';
import { corsHeaders, isCorsHeader, parseCorsOrigins, preflightHeaders } from './cors';

const req = (method: string, headers: Record<string, string>) => ({ method, headers }) as unknown as IncomingMessage;

describe('parseCorsOrigins', () => {
  it('reads *, a list of origins, and empty as off', () => {
    expect(parseCorsOrigins('*')).toEqual({ anyOrigin: true });
    expect(parseCorsOrigins('')).toBeUndefined();
    expect(parseCorsOrigins(' https://a.example , http://b.example:8080/ ')).toEqual({
      anyOrigin: false,
      origins: new Set(['https://a.example', 'http://b.example:8080']),
    });
  });

  it('refuses, naming it, an entry that is not an origin', () => {
    expect(() => parseCorsOrigins('https://a.example/path')).toThrow('"https://a.example/path" is not an origin');
    expect(() => parseCorsOrigins('a.example')).toThrow('"a.example" is not an origin');
    expect(() => parseCorsOrigins('*, https://a.example')).toThrow('"*" is not an origin');
  });
});

describe('corsHeaders and preflightHeaders', () => {
  const listed = parseCorsOrigins('https://a.example');

  it('sends nothing when CORS is off', () => {
    expect(corsHeaders(undefined, 'https://a.example')).toEqual([]);
    expect(preflightHeaders(undefined, req('OPTIONS', { 'access-control-request-method': 'GET' }))).toBeUndefined();
  });

  it('names a listed origin, and only varies by origin for an unlisted one', () => {
    expect(corsHeaders(listed, 'https://a.example')).toEqual(
      expect.arrayContaining(['access-control-allow-origin', 'https://a.example', 'vary', 'origin']),
    );
    expect(corsHeaders(listed, 'https://b.example')).toEqual(['vary', 'origin']);
    expect(corsHeaders(listed, undefined)).toEqual(['vary', 'origin']);
  });

  it('takes only an OPTIONS with Access-Control-Request-Method for a preflight', () => {
    expect(preflightHeaders(listed, req('OPTIONS', { origin: 'https://a.example' }))).toBeUndefined();
    expect(preflightHeaders(listed, req('GET', { 'access-control-request-method': 'GET' }))).toBeUndefined();
    const answer = preflightHeaders(
      listed,
      req('OPTIONS', { origin: 'https://a.example', 'access-control-request-method': 'POST' }),
    );
    expect(answer).toEqual(expect.arrayContaining(['access-control-allow-methods', 'access-control-max-age']));
  });

  it('allows the headers a preflight asks for when it names them well, else the usual ones', () => {
    const ask = (headers?: string) =>
      preflightHeaders(
        listed,
        req('OPTIONS', {
          origin: 'https://a.example',
          'access-control-request-method': 'GET',
          ...(headers === undefined ? {} : { 'access-control-request-headers': headers }),
        }),
      )!;
    const allowed = (answer: string[]) => answer[answer.indexOf('access-control-allow-headers') + 1];
    expect(allowed(ask('X-Api-Key, Authorization'))).toBe('x-api-key, authorization');
    expect(allowed(ask())).toContain('x-api-key');
    expect(allowed(ask('bad header\r\nx: y'))).toContain('x-api-key');
  });

  it('owns every Access-Control header of an upstream answer', () => {
    expect(isCorsHeader('access-control-allow-origin')).toBe(true);
    expect(isCorsHeader('access-control-allow-credentials')).toBe(true);
    expect(isCorsHeader('vary')).toBe(false);
  });
});
