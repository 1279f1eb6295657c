import type { Cluster, Worker } from 'node:cluster';
import { MemoryLimiter } from './memory-limiter';
import type { Decision, Limiter, Subject } from './policy';

const REQ = 'gateway:rl:req';
const RES = 'gateway:rl:res';

interface LimitRequest {
  type: typeof REQ;
  id: number;
  subject: Subject;
}
interface LimitResponse {
  type: typeof RES;
  id: number;
  decision: Decision;
}

/**
 * In-memory counters shared by the workers of one host (the embedded default, no Redis): the primary holds
 * them and each worker asks it over the cluster IPC channel. If the primary does not answer in time, the
 * worker's own local limiter decides.
 */
export class IpcLimiter implements Limiter {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (d: Decision) => void; timer: NodeJS.Timeout; subject: Subject }>();
  private readonly local = new MemoryLimiter('local');
  private readonly onMessage = (msg: unknown) => {
    const m = msg as LimitResponse;
    if (m?.type !== RES) return;
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    clearTimeout(p.timer);
    p.resolve(m.decision);
  };

  constructor(
    private readonly proc: NodeJS.Process = process,
    private readonly timeoutMs = 250,
  ) {
    proc.on('message', this.onMessage);
  }

  check(subject: Subject): Promise<Decision> {
    if (!this.proc.send || !this.proc.connected) return this.local.check(subject);
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve(this.local.checkSync(subject));
      }, this.timeoutMs);
      this.pending.set(id, { resolve, timer, subject });
      const msg: LimitRequest = { type: REQ, id, subject };
      this.proc.send!(msg);
    });
  }

  async close(): Promise<void> {
    this.proc.off('message', this.onMessage);
    for (const [, p] of this.pending) {
      clearTimeout(p.timer);
      p.resolve(this.local.checkSync(p.subject));
    }
    this.pending.clear();
    await this.local.close();
  }
}

/** In the primary: answers the workers' limit requests from one MemoryLimiter. */
export function serveIpcLimiter(cluster: Cluster): MemoryLimiter {
  const limiter = new MemoryLimiter('memory');
  cluster.on('message', (worker: Worker, msg: unknown) => {
    const m = msg as LimitRequest;
    if (m?.type !== REQ) return;
    const res: LimitResponse = { type: RES, id: m.id, decision: limiter.checkSync(m.subject) };
    if (worker.isConnected()) worker.send(res);
  });
  return limiter;
}
