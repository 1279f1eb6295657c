import { readFileSync } from 'node:fs';

/** A process's user and kernel CPU so far, in ms (`/proc/<pid>/stat` utime and stime, clock ticks of 10 ms). */
export function cpuSplitMs(pid: number): { user: number; sys: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) * 10, sys: Number(fields[12]) * 10 };
}

/** A process's CPU so far (user and kernel), in ms. */
export function cpuMs(pid: number): number {
  const { user, sys } = cpuSplitMs(pid);
  return user + sys;
}
