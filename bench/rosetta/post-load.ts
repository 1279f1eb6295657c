import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasWrk, httpLoad, nodeLoad, wrkLoad, type Load } from '../http-load';

/** A request of a load run: a GET of `url`, or a POST of `body` (JSON) to it, as Rosetta's endpoints take. */
export interface Target {
  url: string;
  body?: unknown;
}

/**
 * Loads `target` for `seconds` with `connections` keep-alive connections: `wrk` when installed (a POST through a
 * small Lua script setting method, body and content type), else a Node generator; a GET goes to `httpLoad`.
 */
export async function targetLoad(target: Target, seconds: number, connections: number, timeoutSeconds?: number): Promise<Load> {
  if (target.body === undefined) return httpLoad(target.url, { seconds, connections, timeoutSeconds });
  const body = JSON.stringify(target.body);
  if (!hasWrk()) return nodeLoad(target.url, { seconds, connections, postJson: body });
  const dir = mkdtempSync(join(tmpdir(), 'bench-rosetta-wrk-'));
  try {
    const script = join(dir, 'post.lua');
    writeFileSync(
      script,
      `wrk.method = "POST"\nwrk.body = ${luaString(body)}\nwrk.headers["Content-Type"] = "application/json"\n`,
    );
    return await wrkLoad(target.url, { seconds, connections, script, timeoutSeconds });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A Lua long string literal holding `s` (no `]==]` can occur in JSON of hex and digits, but the level is chosen anyway). */
function luaString(s: string): string {
  let level = '=';
  while (s.includes(`]${level}]`)) level += '=';
  return `[${level}[${s}]${level}]`;
}

/** One request: status and body text. */
export async function send(target: Target): Promise<{ status: number; text: string }> {
  const res = await fetch(
    target.url,
    target.body === undefined
      ? {}
      : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(target.body) },
  );
  return { status: res.status, text: await res.text() };
}
