import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One process's line of `/proc/<pid>/stat`: its name, parent, own CPU and what its reaped children spent, in ms. */
export interface ProcStat {
  pid: number;
  ppid: number;
  name: string;
  user: number;
  sys: number;
  /** cutime and cstime: the CPU of children this process waited for (exited backends, for the postmaster). */
  childUser: number;
  childSys: number;
}

/** A process's `/proc/<pid>/stat` (comm, ppid, utime, stime, cutime, cstime; ticks of 10 ms turned into ms). */
export function procStat(pid: number): ProcStat {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    pid,
    ppid: Number(fields[1]),
    name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
    user: Number(fields[11]) * 10,
    sys: Number(fields[12]) * 10,
    childUser: Number(fields[13]) * 10,
    childSys: Number(fields[14]) * 10,
  };
}

/** A process's CPU so far (user and kernel, all its threads), in ms. */
export function cpuMs(pid: number): number {
  const { user, sys } = procStat(pid);
  return user + sys;
}

/** Every process on the machine now, by pid (processes that exit while being read are left out). */
export function allProcs(): Map<number, ProcStat> {
  const out = new Map<number, ProcStat>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      out.set(Number(d), procStat(Number(d)));
    } catch {
      // gone
    }
  }
  return out;
}

/** `root` and every live process below it. */
export function processTree(root: number, procs: Map<number, ProcStat>): number[] {
  const children = new Map<number, number[]>();
  for (const p of procs.values()) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
  const out: number[] = [];
  const todo = procs.has(root) ? [root] : [];
  while (todo.length > 0) {
    const pid = todo.pop()!;
    out.push(pid);
    todo.push(...(children.get(pid) ?? []));
  }
  return out;
}

/**
 * The CPU a process tree has spent so far, in ms: each live process's own time plus what the children it reaped spent
 * (cutime/cstime). The difference of two readings is exact for the window between them, processes started and ended
 * inside it included (a PostgreSQL backend that exits is reaped by the postmaster and lands in its cutime), as long
 * as `exclude` (processes counted elsewhere, e.g. the bench's own backend) stays alive through the window.
 */
export function treeCpuMs(root: number, procs: Map<number, ProcStat>, exclude: ReadonlySet<number> = new Set()): number {
  let ms = 0;
  for (const pid of processTree(root, procs)) {
    const p = procs.get(pid)!;
    ms += p.childUser + p.childSys;
    if (!exclude.has(pid)) ms += p.user + p.sys;
  }
  return ms;
}

/** The postmaster of the PostgreSQL whose data directory this is (first line of `postmaster.pid`). */
export function postmasterPid(dataDir: string): number {
  return Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
}

/**
 * The Kafka broker started by `startKafka` on this data directory: the topmost process whose command line names its
 * `server.properties` (the watchdog shell; the JVM is its child).
 */
export function kafkaBrokerPid(dataDir: string): number {
  const props = join(dataDir, 'server.properties');
  const matches = new Set<number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').includes(props)) matches.add(Number(d));
    } catch {
      // gone
    }
  }
  const procs = allProcs();
  const root = [...matches].find((pid) => !matches.has(procs.get(pid)?.ppid ?? -1));
  if (root === undefined) throw new Error(`no Kafka broker process found for ${props}`);
  return root;
}

/** What each named group of processes spent between `start()` and `stop()`, in ms. */
export interface CpuWindow {
  stop(): Record<string, number>;
}

/**
 * Starts a CPU window over named process trees (`{ indexer: pid, postgres: postmasterPid, kafka: brokerPid }`),
 * leaving out `exclude`'s processes (they must live through the window; see `treeCpuMs`).
 */
export function startCpuWindow(roots: Record<string, number>, exclude: ReadonlySet<number> = new Set()): CpuWindow {
  const read = () => {
    const procs = allProcs();
    return Object.fromEntries(Object.entries(roots).map(([name, pid]) => [name, treeCpuMs(pid, procs, exclude)]));
  };
  const before = read();
  return {
    stop: () => {
      const after = read();
      return Object.fromEntries(Object.keys(roots).map((name) => [name, after[name]! - before[name]!]));
    },
  };
}

/**
 * CPU so far (ms) of an api process tree and of a PostgreSQL server (the postmaster and its backends): read before
 * and after a timed run, divided by its requests, it gives what a request costs on each side, which the req/s of a
 * shared 2-core machine blurs.
 */
export function apiAndPostgresCpu(apiPid: number, pgDataDir: string): () => { api: number; pg: number } {
  const postmaster = postmasterPid(pgDataDir);
  return () => {
    const procs = allProcs();
    return { api: treeCpuMs(apiPid, procs), pg: treeCpuMs(postmaster, procs) };
  };
}
