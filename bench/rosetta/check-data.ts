import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../scripts/lib/service-process';
import { BenchInvalidError } from '../spread';

/** The pinned conformance tool `make rosetta-cli` builds (scripts/rosetta/fetch-rosetta-cli.sh). */
export function rosettaCliPath(): string {
  const bin = join(process.env.ROSETTA_CLI_CACHE_DIR ?? join(ROOT, '.cache', 'rosetta-cli'), 'v0.10.3', 'rosetta-cli');
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`make rosetta-cli\``);
  return bin;
}

/** `check:data`'s counts. */
export type CheckDataStats = {
  blocks: number;
  transactions: number;
  operations: number;
  accounts: number;
  active_reconciliations: number;
  inactive_reconciliations: number;
  failed_reconciliations: number;
  skipped_reconciliations: number;
  reconciliation_coverage: number;
};

/** The parts of `check:data`'s results file the bench reads. */
export interface CheckDataResults {
  error?: string;
  end_condition?: { type: string; condition: string } | null;
  /** Null when the run was stopped. */
  tests: { request_response: boolean; response_assertion: boolean; reconciliation: boolean | null } | null;
  /** Null when the run failed before syncing. */
  stats: CheckDataStats | null;
}

/** A `check:data` run: its wall time, results and the last lines it printed. */
export interface CheckDataRun {
  seconds: number;
  results: CheckDataResults;
  stats: CheckDataStats;
  /** False when `maxSeconds` stopped it first: `stats` are what it had done by then. */
  finished: boolean;
  tail: string;
}

/**
 * `rosetta-cli check:data` from genesis until it has synced the tip block (`end_conditions.index`: the tool's `tip`
 * condition, with the `tip_delay` these 2023-dated generated blocks need, fires at the first block it checks) and
 * drained its reconciliation queue, with the tool's default concurrency (online connections, sync concurrency,
 * reconciliation concurrency), or until `maxSeconds`. A run that ends on its own without reaching the tip, or with a
 * failed reconciliation, is invalid.
 */
export async function runCheckData(opts: {
  dir: string;
  onlineUrl: string;
  network: 'mainnet' | 'testnet';
  /** The chain's tip: the run ends when it has synced that block (`end_conditions.index`). */
  tipHeight: number;
  expectedBlocks: number;
  /** Stops the tool (SIGINT: it writes its results) after this long; such a run is reported as stopped, not finished. */
  maxSeconds?: number;
}): Promise<CheckDataRun> {
  mkdirSync(opts.dir, { recursive: true });
  const resultsFile = join(opts.dir, 'results.json');
  const configFile = join(opts.dir, 'config.json');
  writeFileSync(
    configFile,
    JSON.stringify(
      {
        network: { blockchain: 'stacks', network: opts.network },
        online_url: opts.onlineUrl,
        data_directory: join(opts.dir, 'data'),
        http_timeout: 30,
        max_retries: 5,
        tip_delay: 2_000_000_000,
        data: { results_output_file: resultsFile, end_conditions: { index: opts.tipHeight } },
      },
      null,
      2,
    ),
  );
  const t0 = performance.now();
  const out: string[] = [];
  let stopped = false;
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(rosettaCliPath(), ['check:data', '--configuration-file', configFile], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stop = opts.maxSeconds
      ? setTimeout(() => {
          stopped = true;
          child.kill('SIGINT');
        }, opts.maxSeconds * 1000)
      : undefined;
    const timer = setTimeout(() => child.kill('SIGKILL'), (opts.maxSeconds ?? 3 * 3600) * 1000 + 120_000);
    const keep = (c: Buffer) => {
      out.push(c.toString());
      if (out.length > 400) out.splice(0, 200);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', reject);
    child.on('exit', (c) => {
      clearTimeout(timer);
      clearTimeout(stop);
      resolve(c);
    });
  });
  const seconds = (performance.now() - t0) / 1000;
  const tail = out.join('').split('\n').slice(-15).join('\n');
  if (!existsSync(resultsFile)) throw new BenchInvalidError(`check:data wrote no results (exit ${code}):\n${tail}`);
  const results = JSON.parse(readFileSync(resultsFile, 'utf8')) as CheckDataResults;
  if (!stopped && (code !== 0 || !results.end_condition || (results.stats?.blocks ?? 0) < opts.expectedBlocks)) {
    throw new BenchInvalidError(
      `check:data did not sync to the tip (exit ${code}, end condition ${JSON.stringify(results.end_condition)}, ` +
        `${results.stats?.blocks ?? 0} blocks, error ${results.error ?? 'none'}):\n${tail}`,
    );
  }
  const stats = results.stats;
  if (!stats || stats.failed_reconciliations > 0 || results.tests?.reconciliation === false) {
    throw new BenchInvalidError(`check:data: ${stats?.failed_reconciliations ?? '?'} failed reconciliation(s)`);
  }
  return { seconds, results, stats, finished: !stopped, tail };
}
