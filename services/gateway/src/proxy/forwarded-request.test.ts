import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from '@jest/globals';
import { parseTrustProxy } from './client-ip';
import { forwardedHeaders, forwardedTarget } from './forwarded-request';

/** The parts of a request forwardedHeaders reads, as Node's parser would give them. */
function fakeRequest(rawHeaders: string[], remoteAddress: string): IncomingMessage {
  const headers: Record<string, string> = {};
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    headers[name] = headers[name] === undefined ? rawHeaders[i + 1]! : `${headers[name]}, ${rawHeaders[i + 1]}`;
  }
  return { rawHeaders, headers, socket: { remoteAddress } } as unknown as IncomingMessage;
}

const pairs = (flat: string[]) => Array.from({ length: flat.length / 2 }, (_, i) => [flat[2 * i]!, flat[2 * i + 1]!]);

describe('forwardedHeaders', () => {
  const spoofed = [
    'Host',
    'evil.example',
    'X-Forwarded-For',
    '6.6.6.6',
    'X-Forwarded-Host',
    'evil.example',
    'X-Forwarded-Proto',
    'https',
    'X-Forwarded-Port',
    '443',
    'X-Real-IP',
    '6.6.6.6',
    'Forwarded',
    'for=6.6.6.6',
    'x-api-key',
    'bda_secret',
    'X-BDA-Want-Data-Epoch',
    '1',
    'x-bda-data-epoch',
    '7',
    'Accept',
    'application/json',
  ];

  it("sets the forwarding headers from what the gateway knows, never the client's", () => {
    const out = pairs(
      forwardedHeaders(fakeRequest(spoofed, '198.51.100.4'), '198.51.100.4', { kind: 'hops', hops: 0 }, undefined),
    );
    expect(out).toEqual([
      ['Accept', 'application/json'],
      ['x-forwarded-for', '198.51.100.4'],
      ['x-real-ip', '198.51.100.4'],
      ['x-forwarded-proto', 'http'],
    ]);
  });

  it('takes the protocol and host from our own proxy in front, and the length from the body read', () => {
    const trust = parseTrustProxy('10.0.0.0/8');
    const raw = [
      'X-Forwarded-For',
      '6.6.6.6, 203.0.113.9',
      'X-Forwarded-Proto',
      'http, https',
      'X-Forwarded-Host',
      'api.example.org',
    ];
    const out = pairs(forwardedHeaders(fakeRequest(raw, '10.1.2.3'), '203.0.113.9', trust, Buffer.from('abc')));
    expect(out).toEqual([
      ['x-forwarded-for', '203.0.113.9'],
      ['x-real-ip', '203.0.113.9'],
      ['x-forwarded-proto', 'https'],
      ['x-forwarded-host', 'api.example.org'],
      ['content-length', '3'],
    ]);
    // The same headers from a peer that is not our proxy count for nothing.
    const direct = pairs(forwardedHeaders(fakeRequest(raw, '192.0.2.1'), '192.0.2.1', trust, undefined));
    expect(direct).toEqual([
      ['x-forwarded-for', '192.0.2.1'],
      ['x-real-ip', '192.0.2.1'],
      ['x-forwarded-proto', 'http'],
    ]);
    // A host our proxy passed on that is not a host name is dropped.
    const odd = ['X-Forwarded-Host', 'a b/c'];
    expect(forwardedHeaders(fakeRequest(odd, '10.1.2.3'), '10.1.2.3', trust, undefined)).not.toContain('x-forwarded-host');
  });
});

describe('forwardedTarget', () => {
  it('strips the x-api-key query parameter however it is written, and keeps everything else as sent', () => {
    expect(forwardedTarget('/extended/v1/tx/0x01?limit=5&x-api-key=bda_a&offset=2')).toBe(
      '/extended/v1/tx/0x01?limit=5&offset=2',
    );
    expect(forwardedTarget('/a?X-API-KEY=bda_a&x%2Dapi%2dkey=bda_b&x-api-key&b=%20')).toBe('/a?b=%20');
    expect(forwardedTarget('/a?x-api-key=bda_a')).toBe('/a');
    expect(forwardedTarget('/a?api=1&x-api-keys=2&q=%zz')).toBe('/a?api=1&x-api-keys=2&q=%zz');
    expect(forwardedTarget('/v2/info')).toBe('/v2/info');
  });
});
