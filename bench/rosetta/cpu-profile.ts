import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The parts of a V8 `.cpuprofile` (what `node --cpu-prof` writes) this summary reads. */
interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number }>;
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Where a process's samples went: idle share, and the functions with the most self time. */
export interface ProfileSummary {
  wallMs: number;
  /** Sampled time in `(idle)`: the process waited (for PostgreSQL, for requests). */
  idleMs: number;
  gcMs: number;
  top: Array<{ name: string; ms: number }>;
}

/** The profile `node --cpu-prof --cpu-prof-dir=<dir>` wrote for process `pid`. */
export function profileOf(dir: string, pid: number): string {
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile') && f.split('.').includes(String(pid)));
  if (!file) throw new Error(`no .cpuprofile of process ${pid} in ${dir}`);
  return join(dir, file);
}

/** Self time by function (name and file:line, node_modules paths shortened), from the samples and their deltas. */
export function summarizeProfile(file: string, topN = 12): ProfileSummary {
  const p = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let idle = 0;
  let gc = 0;
  p.samples.forEach((id, i) => {
    const us = p.timeDeltas[i] ?? 0;
    const f = byId.get(id)!.callFrame;
    if (f.functionName === '(idle)') idle += us;
    if (f.functionName === '(garbage collector)') gc += us;
    const where = f.url
      ? ` ${f.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(services|libs)\//, '$1/')}:${f.lineNumber + 1}`
      : '';
    const name = `${f.functionName || '(anonymous)'}${where}`;
    self.set(name, (self.get(name) ?? 0) + us);
  });
  const top = [...self]
    .filter(([name]) => !name.startsWith('(idle)'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, topN)
    .map(([name, us]) => ({ name, ms: us / 1000 }));
  return { wallMs: (p.endTime - p.startTime) / 1000, idleMs: idle / 1000, gcMs: gc / 1000, top };
}
