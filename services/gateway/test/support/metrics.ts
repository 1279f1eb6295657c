import { request } from './http';

/** The value of one series on a gateway's /metrics (0 when absent); `port` is the gateway's admin port. */
export async function metricValue(port: number, name: string, labels: Record<string, string> = {}): Promise<number> {
  const r = await request(port, { path: '/metrics' });
  let total = 0;
  for (const line of r.text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) continue;
    total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}
