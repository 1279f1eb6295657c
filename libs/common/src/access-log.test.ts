import { describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import { requestLog, requestLogLine, type RequestLine } from './access-log';

/** What pino writes for `info(fields, 'request')` on a logger named `name`, at a fixed time, and the logger itself. */
function pinoCapture(name: string, level = 'info', time = 1_764_000_000_123) {
  const lines: string[] = [];
  const logger = pino({ name, level, timestamp: () => `,"time":${time}` }, { write: (s: string) => lines.push(s) });
  return { logger, lines };
}

function pinoLine(name: string, fields: RequestLine, time: number): string {
  const { logger, lines } = pinoCapture(name, 'info', time);
  logger.info(fields, 'request');
  return lines[0]!;
}

const line: RequestLine = {
  reqId: '6f1c2b1e-4a38-4c1e-9a57-0c6c2f4a9d11',
  method: 'GET',
  path: '/extended',
  status: 200,
  ms: 0.42,
};

describe('requestLogLine', () => {
  it('writes what pino writes, byte for byte', () => {
    expect(requestLogLine('api', line, 1_764_000_000_123)).toBe(pinoLine('api', line, 1_764_000_000_123));
  });

  it('leaves out an undefined request id and method, as pino does', () => {
    const lean = { ...line, reqId: undefined, method: undefined, status: 404 };
    expect(requestLogLine('observer', lean, 9)).toBe(pinoLine('observer', lean, 9));
    expect(JSON.parse(requestLogLine('observer', lean, 9))).not.toHaveProperty('reqId');
  });

  it('keeps a path with quotes, backslashes, control and non-ASCII characters inside one valid JSON line', () => {
    const odd = { ...line, path: '/v1/names/"a\\b"\n\u0001é…', status: 400 };
    const text = requestLogLine('api', odd, 7);
    expect(text).toBe(pinoLine('api', odd, 7));
    expect(text.endsWith('\n')).toBe(true);
    expect(text.slice(0, -1)).not.toContain('\n');
    expect(JSON.parse(text).path).toBe('/v1/names/"a\\b"\n\u0001é…');
  });
});

describe('requestLog', () => {
  it('writes the hand-built line to the sink when one is given, and nothing through the logger', () => {
    const { logger, lines } = pinoCapture('api');
    const sink: string[] = [];
    requestLog(logger, 'api', { write: (s: string) => sink.push(s) })(line);
    expect(lines).toEqual([]);
    expect(sink).toHaveLength(1);
    expect(JSON.parse(sink[0]!)).toMatchObject({ level: 30, name: 'api', msg: 'request', ...line });
  });

  it('logs through the logger at info without a sink', () => {
    const { logger, lines } = pinoCapture('api');
    requestLog(logger, 'api')(line);
    expect(lines.map((l) => JSON.parse(l))).toEqual([expect.objectContaining({ msg: 'request', ...line })]);
  });

  it('writes nothing when the level leaves info out', () => {
    const { logger, lines } = pinoCapture('api', 'warn');
    const sink: string[] = [];
    requestLog(logger, 'api', { write: (s: string) => sink.push(s) })(line);
    requestLog(logger, 'api')(line);
    expect([...lines, ...sink]).toEqual([]);
  });
});
