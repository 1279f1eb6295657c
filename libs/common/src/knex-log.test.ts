import { describe, expect, it } from '@jest/globals';
import { knexLog } from './knex-log';

describe('knexLog', () => {
  const collect = () => {
    const lines: Array<{ level: string; msg: string }> = [];
    const logger = {
      debug: (_obj: object, msg: string) => lines.push({ level: 'debug', msg }),
      warn: (_obj: object, msg: string) => lines.push({ level: 'warn', msg }),
    };
    return { lines, log: knexLog(logger) };
  };

  it('sends failed connection attempts to debug: the services report the outage in their own words', () => {
    const { lines, log } = collect();
    log.warn('Acquire connection error: Error: connect ECONNREFUSED 127.0.0.1:5432');
    log.error(new Error('Connection terminated unexpectedly'));
    expect(lines.map((l) => l.level)).toEqual(['debug', 'debug']);
    expect(lines[1]!.msg).toBe('Connection terminated unexpectedly');
  });

  it('keeps any other warning a warning', () => {
    const { lines, log } = collect();
    log.warn('.returning() is not supported by mysql');
    log.deprecate('something old');
    expect(lines.map((l) => l.level)).toEqual(['warn', 'warn']);
  });
});
