import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasWrk, nodeLoad, type Load } from '../http-load';

/** A load run, with the CPU time wrk itself used (user + system, ms; NaN without wrk). */
export interface PathsLoad extends Load {
  wrkCpuMs: number;
}

/**
 * Loads `base` + each of `paths` in turn (so the lookups spread over the tables, not one cached row): `wrk` with a Lua
 * script cycling through the paths (each of its two threads from another start), else the Node generator on the
 * first path only (said so in the output).
 */
export async function pathsLoad(base: string, paths: string[], seconds: number, connections: number): Promise<PathsLoad> {
  if (!hasWrk()) return { ...(await nodeLoad(`${base}${paths[0]!}`, { seconds, connections })), wrkCpuMs: NaN };
  const dir = mkdtempSync(join(tmpdir(), 'bench-names-'));
  const script = join(dir, 'paths.lua');
  writeFileSync(
    script,
    `local paths = {${paths.map((p) => JSON.stringify(p)).join(',')}}
local i = 0
local n = #paths
local threads = 0
function setup(thread)
  thread:set("start", threads * 7919)
  threads = threads + 1
end
function init(args) i = (start or 0) % n end
function request()
  i = i % n + 1
  return wrk.format("GET", paths[i])
end
`,
  );
  try {
    return await new Promise<PathsLoad>((resolve, reject) => {
      // bash's `times` prints the CPU its children used: wrk's own cost per request.
      const wrk = ['wrk', '-t2', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', script, base];
      const child = spawn('bash', ['-c', '"$@"; code=$?; times; exit $code', 'bash', ...wrk], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.on('exit', (code) => {
        if (code !== 0) return reject(new Error(`wrk exited ${code}: ${out}`));
        const ms = (m: RegExpExecArray | null) => (m ? Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1) : NaN);
        const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
        const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(out);
        const socket = /Socket errors:.*?(\d+).*?(\d+).*?(\d+).*?(\d+)/.exec(out);
        if (!rps) return reject(new Error(`cannot read wrk output:\n${out}`));
        // `times`: the shell's user and system time, then its children's (`0m1.234s 0m0.567s`).
        const times = [...out.matchAll(/(\d+)m([\d.]+)s/g)].slice(-2);
        const wrkCpuMs = times.reduce((t, m) => t + (Number(m[1]) * 60 + Number(m[2])) * 1000, 0);
        resolve({
          rps: Number(rps[1]),
          p50: ms(/\s50%\s+([\d.]+)(us|ms|s)/.exec(out)),
          p99: ms(/\s99%\s+([\d.]+)(us|ms|s)/.exec(out)),
          errors: Number(non2xx?.[1] ?? 0) + (socket ? socket.slice(1).reduce((n, v) => n + Number(v), 0) : 0),
          wrkCpuMs: times.length === 2 ? wrkCpuMs : NaN,
        });
      });
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
