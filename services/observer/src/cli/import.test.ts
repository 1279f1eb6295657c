import { describe, expect, it } from '@jest/globals';
import { loadObserverEnv } from '../env';
import { runImportCommand } from './import';

async function run(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  // No bus is reachable here: every case below must be refused before the command connects.
  const env = loadObserverEnv({ DATABASE_URL: 'postgres://nobody@127.0.0.1:9/none', LOG_LEVEL: 'silent' });
  const code = await runImportCommand(args, env, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

describe('npm run import', () => {
  it('answers 2 with the usage when the file is missing or options are malformed', async () => {
    for (const [args, problem] of [
      [[], 'usage: npm run import'],
      [['a.tsv', '--from-id', 'ten'], '--from-id: expected a row id'],
      [['a.tsv', '--from-id=-3'], '--from-id: expected a row id'],
      [['a.tsv', '--batch-events', '0'], '--batch-events: expected an integer'],
      [['a.tsv', '--batch-bytes', 'lots'], '--batch-bytes: not a byte size'],
      [['a.tsv', '--bogus'], "Unknown option '--bogus'"],
    ] as const) {
      const r = await run([...args]);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.err.join('\n')).toContain(problem);
      expect(r.out).toEqual([]);
    }
  });

  it('answers 1 naming the part that cannot be read before importing any of them', async () => {
    const r = await run([import.meta.filename, '/nonexistent/part-2.tsv']);
    expect(r.code).toBe(1);
    expect(r.err.join('\n')).toMatch(/cannot read \/nonexistent\/part-2\.tsv: ENOENT/);
  });

  it('answers 1 naming the file when it cannot be read', async () => {
    const r = await run(['/nonexistent/events.tsv']);
    expect(r.code).toBe(1);
    expect(r.err.join('\n')).toMatch(/cannot read \/nonexistent\/events\.tsv: ENOENT/);
  });
});
