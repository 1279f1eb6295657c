import { describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import { accessLine, type AccessLine } from './access-line';

/** What pino itself writes for `info(fields, 'request')` on the gateway's access logger, at a fixed time. */
function pinoLine(fields: AccessLine, time: number): string {
  const lines: string[] = [];
  const logger = pino(
    { name: 'gateway', level: 'info', timestamp: () => `,"time":${time}` },
    { write: (s: string) => lines.push(s) },
  );
  logger.info(fields, 'request');
  return lines[0]!;
}

const full: AccessLine = {
  reqId: '6f1c2b1e-4a38-4c1e-9a57-0c6c2f4a9d11',
  method: 'POST',
  path: '/v2/transactions',
  status: 200,
  ms: 1.27,
  ip: '2001:db8::1',
  keyId: 'b0b3c0de-0000-4000-8000-000000000001',
  target: 'node',
  upstream: 'http://127.0.0.1:20443',
  tries: 2,
  limited: true,
  aborted: true,
  kept: true,
};

describe('accessLine', () => {
  it('writes what pino writes, byte for byte, with every field set', () => {
    expect(accessLine(full, 1_764_000_000_123)).toBe(pinoLine(full, 1_764_000_000_123));
  });

  it('leaves out the fields that are undefined, as pino does', () => {
    const lean: AccessLine = {
      ...full,
      method: 'GET',
      keyId: undefined,
      upstream: undefined,
      tries: undefined,
      limited: undefined,
      aborted: undefined,
      kept: undefined,
      target: 'gateway',
    };
    expect(accessLine(lean, 5)).toBe(pinoLine(lean, 5));
    expect(JSON.parse(accessLine(lean, 5))).not.toHaveProperty('keyId');
  });

  it('keeps a path with quotes, backslashes, control and non-ASCII characters inside one valid JSON line', () => {
    const odd: AccessLine = { ...full, path: '/v2/"a\\b"\n\u0001é…', status: 400, limited: false };
    const line = accessLine(odd, 7);
    expect(line).toBe(pinoLine(odd, 7));
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toContain('\n');
    expect(JSON.parse(line).path).toBe('/v2/"a\\b"\n\u0001é…');
  });
});
