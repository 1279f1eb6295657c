/**
 * Runs the official Mesh conformance tool, `rosetta-cli` v0.10.3 (built by `make rosetta-cli`, see
 * scripts/rosetta/fetch-rosetta-cli.sh), against a running api, and reads back its results file.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..', '..', '..');

/** The cached binary (built on demand when missing, as `make rosetta-cli` would). */
function rosettaCliPath(): string {
  const bin = join(process.env.ROSETTA_CLI_CACHE_DIR ?? join(ROOT, '.cache', 'rosetta-cli'), 'v0.10.3', 'rosetta-cli');
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`make rosetta-cli\``);
  return bin;
}

/** `check:data`'s results file (`results_output_file`), the parts the tests read. */
export interface CheckDataResults {
  error?: string;
  end_condition?: { type: string; condition: string } | null;
  tests: {
    request_response: boolean;
    response_assertion: boolean;
    block_syncing: boolean | null;
    balance_tracking: boolean | null;
    reconciliation: boolean | null;
  };
  stats: {
    blocks: number;
    orphans: number;
    transactions: number;
    operations: number;
    accounts: number;
    active_reconciliations: number;
    inactive_reconciliations: number;
    exempt_reconciliations: number;
    failed_reconciliations: number;
    skipped_reconciliations: number;
    reconciliation_coverage: number;
  };
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: string[], timeoutMs: number): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(rosettaCliPath(), args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** A fresh working folder with the configuration file; removed by `cleanup`. */
function workdir(config: Record<string, unknown>): { dir: string; configFile: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'rosetta-cli-'));
  const configFile = join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify({ ...config, data_directory: join(dir, 'data') }, null, 2));
  return { dir, configFile, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface CheckDataOptions {
  onlineUrl: string;
  network: 'mainnet' | 'testnet';
  /** `bootstrap_balances` entries, when genesis has no operations to explain some balances (see ADR 0020). */
  bootstrapBalances?: Array<{
    account_identifier: { address: string };
    currency: { symbol: string; decimals: number };
    value: string;
  }>;
  timeoutMs?: number;
}

/**
 * `rosetta-cli check:data` from genesis until the tip `/network/status` advertises and every account it has seen
 * reconciled at least once (`end_conditions.reconciliation_coverage` 1.0 with `tip`). A plain `tip` end condition
 * stops as soon as the syncer reaches the tip, before the reconciler has worked through its queue: a fast run then
 * ends with no reconciliation at all. The recorded fixtures' blocks are years old: `tip_delay` is set so that their
 * tip counts as "at tip" (the tool's other way of seeing the tip, `sync_status.synced`, is not something the api can
 * know of the node).
 *
 * The tool's reconciliation counters (`stats.*_reconciliations`, and from them `tests.reconciliation`) are flushed to
 * its storage every 10 s (`updateFrequency` in its reconciler handler) and not at the end: a run that reaches its end
 * condition within 10 s reports 0 reconciliations and "NOT TESTED" although it reconciled every account. So the
 * reconciliations are read from the tool's own per-reconciliation lines on stdout (`reconciled`, `failures`).
 */
export async function runCheckData(
  opts: CheckDataOptions,
): Promise<{ run: CliRun; results: CheckDataResults; reconciled: Set<string>; failures: string[] }> {
  const base = workdir({});
  const resultsFile = join(base.dir, 'results.json');
  const extra: Record<string, unknown> = {};
  if (opts.bootstrapBalances) {
    const file = join(base.dir, 'bootstrap.json');
    writeFileSync(file, JSON.stringify(opts.bootstrapBalances));
    extra['bootstrap_balances'] = file;
  }
  const w = workdir({
    network: { blockchain: 'stacks', network: opts.network },
    online_url: opts.onlineUrl,
    http_timeout: 30,
    max_retries: 5,
    retry_elapsed_time: 60,
    max_online_connections: 8,
    max_sync_concurrency: 4,
    tip_delay: 2_000_000_000,
    compression_disabled: true,
    all_in_memory_enabled: true,
    data: {
      active_reconciliation_concurrency: 4,
      inactive_reconciliation_concurrency: 2,
      inactive_reconciliation_frequency: 1,
      log_reconciliations: true,
      results_output_file: resultsFile,
      end_conditions: { reconciliation_coverage: { coverage: 1, tip: true } },
      ...extra,
    },
  });
  try {
    const r = await run(['check:data', '--configuration-file', w.configFile], opts.timeoutMs ?? 300_000);
    if (!existsSync(resultsFile)) {
      throw new Error(`rosetta-cli wrote no results (exit ${r.code}):\n${r.stdout.slice(-4000)}\n${r.stderr.slice(-4000)}`);
    }
    // `log_reconciliations` prints a line per reconciliation: `ACTIVE|INACTIVE Reconciled <account> at <index>`.
    const reconciled = new Set([...r.stdout.matchAll(/(?:ACTIVE|INACTIVE) Reconciled (\S+) at \d+/g)].map((m) => m[1]!));
    // A failed reconciliation is always printed, whatever `log_reconciliations` says (active, then inactive form).
    const failures = r.stdout
      .split('\n')
      .filter((line) => /Reconciliation failed for|Missing balance-changing operation detected for/.test(line));
    return { run: r, results: JSON.parse(readFileSync(resultsFile, 'utf8')) as CheckDataResults, reconciled, failures };
  } finally {
    w.cleanup();
    base.cleanup();
  }
}

/** `rosetta-cli check:spec --all` against an online and an offline instance. */
export async function runCheckSpec(opts: {
  onlineUrl: string;
  offlineUrl: string;
  network: 'mainnet' | 'testnet';
}): Promise<CliRun> {
  const w = workdir({
    network: { blockchain: 'stacks', network: opts.network },
    online_url: opts.onlineUrl,
    http_timeout: 30,
    max_retries: 2,
    retry_elapsed_time: 10,
    tip_delay: 2_000_000_000,
    construction: {
      offline_url: opts.offlineUrl,
      max_offline_connections: 2,
      stale_depth: 3,
      broadcast_limit: 3,
      constructor_dsl_file: 'stacks.ros',
      end_conditions: { create_account: 1 },
    },
    data: { end_conditions: { tip: true } },
  });
  // check:spec loads (never runs) the construction section: a minimal constructor DSL that derives an account,
  // beside the configuration file (the tool resolves the DSL path relative to it).
  writeFileSync(
    join(w.dir, 'stacks.ros'),
    `create_account(1){
  create{
    network = {"network":"${opts.network}", "blockchain":"stacks"};
    key = generate_key({"curve_type": "secp256k1"});
    account = derive({"network_identifier": {{network}}, "public_key": {{key.public_key}}});
    save_account({"account_identifier": {{account.account_identifier}}, "keypair": {{key}}});
  }
}
`,
  );
  try {
    return await run(['check:spec', '--all', '--configuration-file', w.configFile], 120_000);
  } finally {
    w.cleanup();
  }
}
