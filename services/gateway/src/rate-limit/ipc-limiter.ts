import type { Cluster, Worker } from 'node:cluster';
import { MemoryLimiter } from './memory-limiter';
import type { Decision, Limiter, Subject } from './policy';

const REQ = 'gateway:rl:req';
const RES = 'gateway:rl:res';

interface LimitRequest {
  type: typeof REQ;
  id: number;
  subjects: Subject[];
}
interface LimitResponse {
  type: typeof RES;
  id: number;
  decisions: Decision[];
}

interface Waiting {
  subjects: Subject[];
  resolves: Array<(d: Decision) => void>;
  timer: NodeJS.Timeout;
}

/**
 * In-memory counters shared by the workers of one host (the embedded default, no Redis): the primary holds
 * them and each worker asks it over the cluster IPC channel, one message per turn of the event loop for all
 * the requests of that turn. If the primary does not answer in time, the worker's own counters decide.
 */
export class IpcLimiter implements Limiter {
  private nextId = 1;
  private readonly waiting = new Map<number, Waiting>();
  private subjects: Subject[] = [];
  private resolves: Array<(d: Decision) => void> = [];
  private scheduled = false;
  private readonly local = new MemoryLimiter('local');
  private readonly onMessage = (msg: unknown) => {
    const m = msg as LimitResponse;
    if (m?.type !== RES) return;
    const w = this.waiting.get(m.id);
    if (!w) return;
    this.waiting.delete(m.id);
    clearTimeout(w.timer);
    w.resolves.forEach((resolve, i) => resolve(m.decisions[i] ?? this.local.checkSync(w.subjects[i]!)));
  };

  constructor(
    private readonly proc: NodeJS.Process = process,
    private readonly timeoutMs = 250,
  ) {
    proc.on('message', this.onMessage);
  }

  check(subject: Subject): Promise<Decision> {
    if (!this.proc.send || !this.proc.connected) return this.local.check(subject);
    return new Promise((resolve) => {
      this.subjects.push(subject);
      this.resolves.push(resolve);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const subjects = this.subjects;
    const resolves = this.resolves;
    this.subjects = [];
    this.resolves = [];
    if (subjects.length === 0) return;
    const id = this.nextId++;
    const timer = setTimeout(() => {
      if (!this.waiting.delete(id)) return;
      resolves.forEach((resolve, i) => resolve(this.local.checkSync(subjects[i]!)));
    }, this.timeoutMs);
    this.waiting.set(id, { subjects, resolves, timer });
    const msg: LimitRequest = { type: REQ, id, subjects };
    this.proc.send!(msg);
  }

  async close(): Promise<void> {
    this.proc.off('message', this.onMessage);
    for (const [, w] of this.waiting) {
      clearTimeout(w.timer);
      w.resolves.forEach((resolve, i) => resolve(this.local.checkSync(w.subjects[i]!)));
    }
    this.waiting.clear();
    await this.local.close();
  }
}

/** In the primary: answers the workers' limit requests from one MemoryLimiter. */
export function serveIpcLimiter(cluster: Cluster): MemoryLimiter {
  const limiter = new MemoryLimiter('memory');
  cluster.on('message', (worker: Worker, msg: unknown) => {
    const m = msg as LimitRequest;
    if (m?.type !== REQ) return;
    const res: LimitResponse = { type: RES, id: m.id, decisions: m.subjects.map((s) => limiter.checkSync(s)) };
    if (worker.isConnected()) worker.send(res);
  });
  return limiter;
}
