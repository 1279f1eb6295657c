import { readFileSync } from 'node:fs';

/** A process's name and its user and kernel CPU so far, in ms (`/proc/<pid>/stat`: comm, utime, stime, in 10 ms ticks). */
export function procStat(pid: number): { name: string; user: number; sys: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
    user: Number(fields[11]) * 10,
    sys: Number(fields[12]) * 10,
  };
}

/** A process's CPU so far (user and kernel), in ms. */
export function cpuMs(pid: number): number {
  const { user, sys } = procStat(pid);
  return user + sys;
}
