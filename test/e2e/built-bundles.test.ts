import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { buildAll } from '../../scripts/build.mjs';
import { ROOT } from '../../scripts/lib/service-process';
import { EXPECTED_TIPS, fixturePath } from '../support/fixtures';
import { startSystem } from '../support/start-system';
import type { TestSystem } from '../support/test-system';

/** Runs a built command with plain node; resolves with its exit code and output. */
function runBundle(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--enable-source-maps', file, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.once('exit', (code) => resolve({ code, out }));
  });
}

/** The artifact production runs (`npm run build`, what `make start` and the image start), not the sources. */
describe('the built bundles', () => {
  const outdir = join(ROOT, '.tmp', `bundles-${process.pid}`);
  let sys: TestSystem;
  beforeAll(async () => {
    await buildAll(outdir);
    sys = await startSystem('postgres', undefined, { BDA_BUNDLE_DIR: outdir });
  });
  afterAll(async () => {
    await sys?.stop();
    rmSync(outdir, { recursive: true, force: true });
  });

  it('run all four services with plain node, and the importer fills what the gateway serves', async () => {
    for (const name of ['observer', 'indexer', 'api', 'gateway'] as const) {
      expect(sys.procs.get(name)!.child.spawnargs).toContain(join(outdir, `${name}.mjs`));
      expect(sys.procs.get(name)!.child.spawnargs).not.toContain('tsx');
    }
    const imported = await runBundle(join(outdir, 'import-events.mjs'), [fixturePath('mocknet.tsv')], {
      ...sys.envFor('observer'),
      LOG_LEVEL: 'warn',
    });
    expect(imported.out).toMatch(/imported 29 events/);
    expect(imported.code).toBe(0);
    await sys.waitForCaughtUp();
    const res = await fetch(`${sys.gatewayUrl}/extended`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { chain_tip: { block_height: number; index_block_hash: string } };
    expect(body.chain_tip).toMatchObject({ block_height: 28, index_block_hash: EXPECTED_TIPS['mocknet.tsv']!.indexBlockHash });
    // The api found the OpenAPI document from dist/ as well.
    const docs = await fetch(`${sys.gatewayUrl}/openapi.json`);
    expect(docs.status).toBe(200);
    expect(((await docs.json()) as { paths: Record<string, unknown> }).paths).toHaveProperty(['/extended']);
  });

  it('answer malformed input with the same JSON errors as the sources', async () => {
    const res = await fetch(`${sys.observerUrl}/new_block`, {
      method: 'POST',
      body: '{"truncated',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_request', message: expect.stringMatching(/not valid JSON/) });
  });

  it('include the key administration command', async () => {
    const r = await runBundle(join(outdir, 'keys.mjs'), ['list', '--json'], { DATABASE_URL: sys.databaseUrl });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual([]);
  });
});
