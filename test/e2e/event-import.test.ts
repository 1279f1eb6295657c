import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadObserverEnv, parseRecordedTime } from '@bda/observer';
import { runImportCommand } from '@bda/observer';
import { replayEvents } from '../../scripts/lib/replay-events';
import { ROOT } from '../../scripts/lib/service-process';
import { EXPECTED_TIPS, fixturePath, loadFixture } from '../support/fixtures';
import { startSystem } from '../support/start-system';
import { RECEIPT_TIME_COLUMNS, tableChecksums } from '../support/table-checksums';
import type { TestSystem } from '../support/test-system';

/** Every fixture, in the order the other end-to-end tests replay them. */
const FILES = Object.keys(EXPECTED_TIPS);

/** `npm run import` in-process, against `sys`'s bus. */
async function importInto(sys: TestSystem, args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const env = loadObserverEnv({ ...sys.envFor('observer'), LOG_LEVEL: 'warn' });
  const code = await runImportCommand(args, env, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

async function tipOf(sys: TestSystem): Promise<{ block_height: number; index_block_hash: string } | null> {
  const res = await fetch(`${sys.apiUrl}/extended`);
  return ((await res.json()) as { chain_tip: { block_height: number; index_block_hash: string } | null }).chain_tip;
}

describe.each(['kafka', 'postgres'] as const)('importing recorded events over the %s bus', (bus) => {
  let imported: TestSystem;
  let replayed: TestSystem;
  beforeAll(async () => {
    // No observer in the importing system: the file goes straight onto the bus.
    [imported, replayed] = await Promise.all([
      startSystem(bus, ['indexer', 'api']),
      startSystem(bus, ['indexer', 'observer', 'api']),
    ]);
    // Every file in one command, as the parts of one archive.
    const r = await importInto(imported, FILES.map(fixturePath));
    expect(r.code).toBe(0);
    expect(r.err).not.toMatch(/invalid|failed|retry/);
    const count = FILES.reduce((n, file) => n + loadFixture(file).length, 0);
    expect(r.out).toMatch(new RegExp(`^imported ${count} events from .*${FILES[0]}, .*${FILES[FILES.length - 1]} in `));
    for (const file of FILES) await replayEvents(loadFixture(file), { observerUrl: replayed.observerUrl, maxRetryMs: 30_000 });
    await Promise.all([imported.waitForCaughtUp(), replayed.waitForCaughtUp()]);
  });
  afterAll(async () => {
    await Promise.all([imported?.stop(), replayed?.stop()]);
  });

  it('leaves every table as replaying the same files through the observer does', async () => {
    const [a, b] = [
      await tableChecksums(imported.db, RECEIPT_TIME_COLUMNS),
      await tableChecksums(replayed.db, RECEIPT_TIME_COLUMNS),
    ];
    expect(a).toEqual(b);
    expect(Number(a['blocks']!.split(':')[0])).toBeGreaterThan(100);
    expect(await tipOf(imported)).toEqual(await tipOf(replayed));
    expect(await imported.db('dead_letters').count({ n: '*' })).toEqual([{ n: '0' }]);
  });

  it('keeps the receive time each row recorded', async () => {
    const recorded = new Set(FILES.flatMap((f) => loadFixture(f)).map((e) => parseRecordedTime(e.receivedAt)!.toISOString()));
    const stored = (await imported.db('mempool_txs').distinct('receipt_time')).map(
      (r: { receipt_time: string }) => r.receipt_time,
    );
    expect(stored.length).toBeGreaterThan(0);
    expect(stored.filter((t) => !recorded.has(t))).toEqual([]);
  });
});

describe('an import that stops at an invalid row', () => {
  let dir: string;
  let broken: TestSystem;
  let clean: TestSystem;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bda-import-'));
    [broken, clean] = await Promise.all([startSystem('kafka', ['indexer', 'api']), startSystem('kafka', ['indexer', 'api'])]);
  });
  afterAll(async () => {
    await Promise.all([broken?.stop(), clean?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('names the row, applies everything before it, and a resume with --from-id ends as one clean import', async () => {
    const lines = readFileSync(fixturePath('mocknet.tsv'), 'utf8').split('\n');
    const badIndex = 10;
    const badId = lines[badIndex]!.split('\t')[0]!;
    const cols = lines[badIndex]!.split('\t');
    const truncated = [...lines];
    truncated[badIndex] = [...cols.slice(0, 3), cols.slice(3).join('\t').slice(0, 500)].join('\t');
    writeFileSync(join(dir, 'broken.tsv'), truncated.join('\n'));

    const first = await importInto(broken, [join(dir, 'broken.tsv')]);
    expect(first.code).toBe(1);
    expect(first.err).toContain(`row id ${badId} (/new_block) is invalid: body: not valid JSON`);
    expect(first.err).toContain(`resume with --from-id ${badId}`);
    await broken.waitForCaughtUp();
    const before = (JSON.parse(cols.slice(3).join('\t')) as { block_height: number }).block_height - 1;
    expect((await tipOf(broken))?.block_height).toBe(before);

    const resumed = await importInto(broken, [fixturePath('mocknet.tsv'), '--from-id', badId]);
    expect(resumed.code).toBe(0);
    expect(resumed.out).toMatch(
      new RegExp(`imported ${lines.filter((l) => l).length - badIndex} events .* ${badIndex} rows before --from-id`),
    );

    // The clean import runs as an operator runs it: `npm run import` in its own process.
    const cli = spawn('npm', ['run', '--silent', 'import', '--', fixturePath('mocknet.tsv')], {
      cwd: ROOT,
      env: { ...process.env, ...clean.envFor('observer'), LOG_LEVEL: 'warn' },
    });
    let stdout = '';
    cli.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    const code = await new Promise<number | null>((resolve) => cli.once('exit', resolve));
    expect(code).toBe(0);
    expect(stdout).toMatch(/^imported 29 events from .*mocknet\.tsv in [\d.]+ s/);

    await Promise.all([broken.waitForCaughtUp(), clean.waitForCaughtUp()]);
    expect(await tipOf(broken)).toMatchObject({
      block_height: 28,
      index_block_hash: EXPECTED_TIPS['mocknet.tsv']!.indexBlockHash,
    });
    expect(await tableChecksums(broken.db)).toEqual(await tableChecksums(clean.db));
  });
});
