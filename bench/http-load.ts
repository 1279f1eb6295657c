import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What one load run measured: requests a second, latency quantiles in ms, and the answers that were not 200. */
export interface Load {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

export interface LoadOptions {
  seconds: number;
  connections: number;
  headers?: Record<string, string>;
  /** A wrk Lua script (e.g. a POST's method and body); `wrkLoad` only. */
  script?: string;
  /** wrk's per-request timeout, counted as a socket error (wrk's default: 2 s); `wrkLoad` only. */
  timeoutSeconds?: number;
  /** A JSON body to POST instead of a GET; `nodeLoad` only (wrk takes it through `script`). */
  postJson?: string;
  /**
   * GETs of these paths (with their queries) on the url's origin, in turn, instead of the url itself: a load spread
   * over many keys (each connection takes the next path; wrk's two threads start half the list apart). Not with
   * `script` or `postJson`.
   */
  paths?: readonly string[];
}

/** Whether Debian's `wrk` is installed (`make bench` installs it). */
export function hasWrk(): boolean {
  try {
    execFileSync('sh', ['-c', 'command -v wrk'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Loads `url` with `wrk` when it is installed, else with `nodeLoad`. */
export function httpLoad(url: string, opts: LoadOptions): Promise<Load> {
  return hasWrk() ? wrkLoad(url, opts) : nodeLoad(url, opts);
}

const toMs = (value: string, unit: string) => Number(value) * (unit === 'us' ? 0.001 : unit === 's' ? 1000 : 1);

/** `wrk` with two threads, read from its `--latency` report. */
export async function wrkLoad(url: string, opts: LoadOptions): Promise<Load> {
  if (!opts.paths) return wrkRun(url, opts);
  if (opts.script) throw new Error('wrkLoad: paths and script are exclusive');
  const dir = mkdtempSync(join(tmpdir(), 'wrk-paths-'));
  try {
    const script = join(dir, 'paths.lua');
    writeFileSync(script, pathsScript(opts.paths));
    return await wrkRun(url, { ...opts, script });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A wrk script that sends GETs of `paths` in turn, each thread from its own place in the list (the first at the
 * start, the second half the list further), every request formatted once at the start.
 */
function pathsScript(paths: readonly string[]): string {
  const list = paths.map((p) => JSON.stringify(p)).join(',\n');
  return `local paths = {\n${list}\n}
local threads = 0
function setup(thread)
  thread:set("first", threads * math.floor(#paths / 2))
  threads = threads + 1
end
local requests, at = {}, 0
function init(args)
  for i, p in ipairs(paths) do requests[i] = wrk.format("GET", p) end
  at = first or 0
end
function request()
  at = at % #requests + 1
  return requests[at]
end
`;
}

function wrkRun(url: string, { seconds, connections, headers = {}, script, timeoutSeconds }: LoadOptions): Promise<Load> {
  return new Promise((resolve, reject) => {
    const h = Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]);
    const s = [...(script ? ['-s', script] : []), ...(timeoutSeconds ? ['--timeout', `${timeoutSeconds}s`] : [])];
    const child = spawn('wrk', ['-t2', `-c${connections}`, `-d${seconds}s`, '--latency', ...h, ...s, url], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`wrk exited ${code}: ${out}`));
      const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
      const p50 = /\s50%\s+([\d.]+)(us|ms|s)/.exec(out);
      const p99 = /\s99%\s+([\d.]+)(us|ms|s)/.exec(out);
      const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(out);
      const socket = /Socket errors:.*?(\d+).*?(\d+).*?(\d+).*?(\d+)/.exec(out);
      if (!rps || !p50 || !p99) return reject(new Error(`cannot read wrk output:\n${out}`));
      resolve({
        rps: Number(rps[1]),
        p50: toMs(p50[1]!, p50[2]!),
        p99: toMs(p99[1]!, p99[2]!),
        errors: Number(non2xx?.[1] ?? 0) + (socket ? socket.slice(1).reduce((n, v) => n + Number(v), 0) : 0),
      });
    });
  });
}

/** `connections` keep-alive request loops for `seconds`: the generator when `wrk` is missing. */
export async function nodeLoad(url: string, { seconds, connections, headers = {}, postJson, paths }: LoadOptions): Promise<Load> {
  if (paths && postJson !== undefined) throw new Error('nodeLoad: paths and postJson are exclusive');
  const origin = new URL(url).origin;
  let next = 0;
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const latencies: number[] = [];
  let errors = 0;
  const end = Date.now() + seconds * 1000;
  const one = () =>
    new Promise<void>((resolve) => {
      const t0 = performance.now();
      const post =
        postJson === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(postJson) };
      const method = postJson === undefined ? 'GET' : 'POST';
      const target = paths ? origin + paths[next++ % paths.length]! : url;
      const req = request(target, { agent, method, headers: { ...headers, ...post } }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode !== 200) errors++;
          latencies.push(performance.now() - t0);
          resolve();
        });
      });
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end(postJson);
    });
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < end) await one();
    }),
  );
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    rps: latencies.length / seconds,
    p50: latencies[Math.floor(latencies.length * 0.5)] ?? 0,
    p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0,
    errors,
  };
}
