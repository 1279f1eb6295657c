import { httpLoad, type Load } from './http-load';
import { BenchInvalidError, formatSpread } from './spread';

export interface EndpointRoundsOptions {
  baseUrl: string;
  /**
   * `[name, path]` of each endpoint, in the order of the first round; a list of paths instead of one spreads that
   * endpoint's load over them (`LoadOptions.paths`: many principals' answers instead of one's).
   */
  endpoints: ReadonlyArray<readonly [string, string | readonly string[]]>;
  rounds: number;
  seconds: number;
  connections: number;
  /** CPU so far (ms) of the api and of PostgreSQL (`apiAndPostgresCpu`). */
  cpu: () => { api: number; pg: number };
  /** Width of the name column in the per-run lines. */
  nameWidth: number;
}

type Run = Load & { apiUs: number; pgUs: number };

/**
 * The api benches' load: `rounds` alternating rounds (each starts one endpoint further along), each endpoint warmed
 * up then loaded for `seconds`, with the api's and PostgreSQL's CPU per request; a line per run, then the summary
 * table, median (min–max) of the rounds. A run with an error answer, or with no answer at all, makes the bench
 * invalid (`BenchInvalidError`, no summary).
 */
export async function measureEndpointRounds(o: EndpointRoundsOptions): Promise<void> {
  const runs = new Map<string, Run[]>();
  for (let round = 0; round < o.rounds; round++) {
    const order = o.endpoints.map((_, i) => o.endpoints[(i + round) % o.endpoints.length]!);
    console.log(`round ${round + 1}/${o.rounds}`);
    for (const [name, target] of order) {
      const [path, paths] = typeof target === 'string' ? [target, undefined] : [target[0]!, target];
      const url = o.baseUrl + path;
      await httpLoad(url, { seconds: Math.min(2, o.seconds), connections: o.connections, paths }); // warm-up
      const before = o.cpu();
      const load = await httpLoad(url, { seconds: o.seconds, connections: o.connections, paths });
      const after = o.cpu();
      const requests = Math.max(1, load.rps * o.seconds);
      const r: Run = {
        ...load,
        apiUs: ((after.api - before.api) * 1000) / requests,
        pgUs: ((after.pg - before.pg) * 1000) / requests,
      };
      runs.set(name, [...(runs.get(name) ?? []), r]);
      console.log(
        `  ${name.padEnd(o.nameWidth)}${r.rps.toFixed(0).padStart(9)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  ` +
          `CPU µs/req api ${r.apiUs.toFixed(0)}, PostgreSQL ${r.pgUs.toFixed(0)}${r.errors ? `  (${r.errors} errors)` : ''}`,
      );
    }
  }
  const failing = [...runs].filter(([, rs]) => rs.some((r) => r.errors > 0 || r.rps === 0));
  if (failing.length > 0)
    throw new BenchInvalidError(
      `non-200 answers, socket errors or no answer at all under load: ${failing.map(([name]) => name).join(', ')}`,
    );
  console.log(`\n${new Date().toISOString()}: median (min–max) of ${o.rounds} alternating round(s), no error answers`);
  console.log('| endpoint | req/s | p50 ms | p99 ms | api CPU µs/req | PostgreSQL CPU µs/req |');
  console.log('|---|---|---|---|---|---|');
  for (const [name, rs] of runs) {
    const f = (pickOf: (r: Run) => number, digits: number) => formatSpread(rs.map(pickOf), digits);
    console.log(
      `| ${name} | ${f((r) => r.rps, 0)} | ${f((r) => r.p50, 2)} | ${f((r) => r.p99, 2)} | ${f((r) => r.apiUs, 0)} | ${f((r) => r.pgUs, 0)} |`,
    );
  }
}
