import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectMessage, waitForTools } from '@bda/test-support';
import { replayEvents } from '../../scripts/lib/replay-events';
import { loadFixture } from '../support/fixtures';
import { startSystem } from '../support/start-system';
import type { TestSystem } from '../support/test-system';

const ROOT = join(import.meta.dirname, '..', '..');
/** Installed by `make test` (scripts/fuzz/install-schemathesis.sh). */
const SCHEMATHESIS = join(ROOT, '.tmp', 'schemathesis', 'bin', 'schemathesis');
/** Generated cases per operation in the fuzzing phase (the coverage phase adds every parameter's edges whatever this is): 5 keeps the 83 operations within make test's budget; FUZZ_MAX_EXAMPLES raises it for a deeper run. */
const MAX_EXAMPLES = Number(process.env.FUZZ_MAX_EXAMPLES ?? 5);
/**
 * schemathesis' phases. The coverage phase (every parameter's edges, deterministic) is left to a deeper run
 * (`FUZZ_PHASES=examples,coverage,fuzzing`): in make test, services/api/test/malformed-input.test.ts already sends
 * every documented route its malformed parameters, and the coverage phase cost most of this file's time.
 */
const PHASES = process.env.FUZZ_PHASES ?? 'examples,fuzzing';
/** Fixed unless FUZZ_SEED says otherwise, so a red run can be repeated exactly. */
const SEED = process.env.FUZZ_SEED ?? '20261126';

interface FuzzRun {
  code: number | null;
  output: string;
  junit: string;
}

/** The Mesh (Rosetta) 1.5.1 specification the Rosetta family answers to (schemas/rosetta/README.md). */
const MESH_SPEC = join(ROOT, 'schemas', 'rosetta', 'mesh-api-1.5.1.json');

function runSchemathesis(
  schema: string,
  baseUrl: string,
  checks: string[],
  extra: string[],
  reportDir: string,
): Promise<FuzzRun> {
  const junitPath = join(reportDir, 'junit.xml');
  const args = [
    'run',
    schema,
    '--url',
    baseUrl,
    '--checks',
    checks.join(','),
    ...extra,
    '--phases',
    PHASES,
    '--max-examples',
    String(MAX_EXAMPLES),
    '--seed',
    SEED,
    '--workers',
    '2',
    '--request-timeout',
    '30',
    '--suppress-health-check',
    'all',
    '--continue-on-failure',
    '--report',
    'junit',
    '--report-junit-path',
    junitPath,
  ];
  return new Promise((resolve) => {
    execFile(
      SCHEMATHESIS,
      args,
      { cwd: reportDir, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } },
      (err, stdout, stderr) => {
        const code = err ? ((err as NodeJS.ErrnoException & { code?: number }).code as unknown as number) : 0;
        resolve({
          code: typeof code === 'number' ? code : 1,
          output: `${stdout}\n${stderr}`,
          junit: existsSync(junitPath) ? readFileSync(junitPath, 'utf8') : '',
        });
      },
    );
  });
}

/**
 * Every public operation of the OpenAPI document the api serves, fuzzed through the gateway (as any client reaches it)
 * by schemathesis: valid and invalid parameters, edge values, odd encodings. The chain holds mocknet's 28 blocks, so
 * known blocks, transactions and addresses are reachable from the examples. Zero server errors and zero answers that
 * break their documented schema are required (issue 18, "Must show").
 */
/**
 * One line of our own for whoever reads the run. Schemathesis's own report stays out of the log on purpose: its
 * closing banner ("== 2 warnings in 58.85s ==") reads as a pytest run that executed no test to whoever scans a
 * CI log for a runner's closing line, and a failure's message carries the whole report anyway.
 */
function fuzzSummary(what: string, cases: number, findings: number): string {
  return `schemathesis against the ${what}: ${cases} operations exercised, ${findings} findings`;
}

describe('the public API under an OpenAPI-driven fuzzer', () => {
  let sys: TestSystem;
  const reportDir = join(ROOT, '.tmp', `fuzz-${process.pid}`);

  // schemathesis: `make test` installs it while the tests run (`waitForTools`).
  beforeAll(() => waitForTools(ROOT), 900_000);

  beforeAll(async () => {
    sys = await startSystem('postgres', undefined, {
      // The fuzzer sends thousands of requests from one address; the limits have their own tests.
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000000',
      RATE_LIMIT_BURST_PER_SECOND: '100000000',
      ACCESS_LOG: 'false',
      LOG_LEVEL: 'warn',
    });
    await replayEvents(loadFixture('mocknet.tsv'), { observerUrl: sys.observerUrl, maxRetryMs: 30_000 });
    await sys.waitForCaughtUp();
    rmSync(reportDir, { recursive: true, force: true });
    mkdirSync(join(reportDir, 'rest'), { recursive: true });
    mkdirSync(join(reportDir, 'rosetta'), { recursive: true });
  });

  afterAll(async () => {
    await sys?.stop();
    rmSync(reportDir, { recursive: true, force: true });
  });

  it('finds no server error and no answer outside its schema on any operation', async () => {
    expectMessage('run scripts/fuzz/install-schemathesis.sh (make test does)', () => expect(existsSync(SCHEMATHESIS)).toBe(true));
    const run = await runSchemathesis(
      `${sys.gatewayUrl}/openapi.json`,
      sys.gatewayUrl,
      // What the issue asks for: no 5xx for any input, and every documented answer in its documented shape.
      ['not_a_server_error', 'response_schema_conformance', 'content_type_conformance'],
      // Internal paths the api documents for operators: the public door never forwards them (a 404 there is the
      // point), and the docs page is HTML for people.
      ['--exclude-path-regex', '^/(healthz|readyz|metrics|docs)$'],
      join(reportDir, 'rest'),
    );
    const failures = [...run.junit.matchAll(/<(failure|error)\b[^>]*?message="([^"]*)"/g)].map((m) => m[2]);
    const cases = [...run.junit.matchAll(/<testcase\b/g)].length;
    console.log(fuzzSummary('REST document', cases, failures.length));
    // The run must have reached the operations (a broken document would give a green run of nothing).
    expectMessage(run.output, () => expect(cases).toBeGreaterThanOrEqual(10));
    expectMessage(run.output, () => expect(failures).toEqual([]));
    expectMessage(run.output, () => expect(run.code).toBe(0));
  }, 900_000);

  it('answers every Rosetta request with a 200 or a 500 carrying an Error, each in the Mesh schema', async () => {
    // Rosetta's own rule: a failure is HTTP 500 with an Error object (never 4xx), so the 500s are expected here and
    // the Mesh document's 200/500 responses are what every answer must match.
    const run = await runSchemathesis(
      MESH_SPEC,
      `${sys.gatewayUrl}/rosetta/v1`,
      ['status_code_conformance', 'response_schema_conformance', 'content_type_conformance'],
      [],
      join(reportDir, 'rosetta'),
    );
    const failures = [...run.junit.matchAll(/<(failure|error)\b[^>]*?message="([^"]*)"/g)].map((m) => m[2]);
    const cases = [...run.junit.matchAll(/<testcase\b/g)].length;
    console.log(fuzzSummary('Mesh document', cases, failures.length));
    expectMessage(run.output, () => expect(cases).toBeGreaterThanOrEqual(15));
    expectMessage(run.output, () => expect(failures).toEqual([]));
    expectMessage(run.output, () => expect(run.code).toBe(0));
  }, 900_000);
});
