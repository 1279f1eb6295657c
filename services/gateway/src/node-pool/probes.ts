import type { Member } from './pool';
import type { ProbeResult } from './health-checker';

/** GET `path` on a member, reading at most 64 KiB; resolves with the status and body. */
function probeGet(m: Member, path: string, timeoutMs: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = m.request({
      host: m.hostname,
      port: m.port,
      method: 'GET',
      path,
      agent: m.agent,
      auth: m.auth,
      headers: { host: m.hostHeader, accept: 'application/json', 'user-agent': 'bda-gateway-health' },
    });
    const timer = setTimeout(() => req.destroy(new Error(`probe timed out after ${timeoutMs} ms`)), timeoutMs);
    req.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.once('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > 65_536) req.destroy(new Error('probe answer larger than 64 KiB'));
        else chunks.push(c);
      });
      res.once('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
      });
      res.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    req.end();
  });
}

/** A node is healthy when `/v2/info` answers 200 with a numeric `stacks_tip_height`. */
export async function probeNode(m: Member, timeoutMs: number): Promise<ProbeResult> {
  const { status, body } = await probeGet(m, '/v2/info', timeoutMs);
  if (status !== 200) return { ok: false, reason: `/v2/info answered ${status}` };
  let info: { stacks_tip_height?: unknown };
  try {
    info = JSON.parse(body) as { stacks_tip_height?: unknown };
  } catch {
    return { ok: false, reason: '/v2/info is not JSON' };
  }
  const tip = info.stacks_tip_height;
  if (typeof tip !== 'number' || !Number.isFinite(tip)) return { ok: false, reason: '/v2/info has no stacks_tip_height' };
  return { ok: true, tip };
}

/** An api replica is healthy when its readiness path answers 2xx. */
export function apiProbe(path: string) {
  return async (m: Member, timeoutMs: number): Promise<ProbeResult> => {
    const { status } = await probeGet(m, path, timeoutMs);
    return status >= 200 && status < 300 ? { ok: true } : { ok: false, reason: `${path} answered ${status}` };
  };
}
