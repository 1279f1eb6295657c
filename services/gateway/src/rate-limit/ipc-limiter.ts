import type { Cluster, Worker } from 'node:cluster';
import { LeaseLimiter, type Grant, type LeaseBackend, type LeaseRequest } from './lease-limiter';
import { MemoryLimiter } from './memory-limiter';
import type { Decision, Limiter, Subject } from './policy';

const REQ = 'gateway:rl:lease';
const RES = 'gateway:rl:grant';

interface LeaseMessage {
  type: typeof REQ;
  id: number;
  requests: LeaseRequest[];
}
interface GrantMessage {
  type: typeof RES;
  id: number;
  grants: Grant[];
}

interface Waiting {
  resolve: (grants: Grant[]) => void;
  reject: (err: unknown) => void;
  timer: NodeJS.Timeout;
}

/** The primary's counters, asked over the cluster IPC channel: one message per batch of leases. */
class IpcLeaseBackend implements LeaseBackend {
  readonly source = 'memory';
  private nextId = 1;
  private readonly waiting = new Map<number, Waiting>();
  private readonly onMessage = (msg: unknown) => {
    const m = msg as GrantMessage;
    if (m?.type !== RES) return;
    const w = this.waiting.get(m.id);
    if (!w) return;
    this.waiting.delete(m.id);
    clearTimeout(w.timer);
    if (Array.isArray(m.grants)) w.resolve(m.grants);
    else w.reject(new Error('unexpected answer from the primary'));
  };

  constructor(
    private readonly proc: NodeJS.Process,
    private readonly timeoutMs: number,
  ) {
    proc.on('message', this.onMessage);
  }

  get available(): boolean {
    return Boolean(this.proc.send) && this.proc.connected;
  }

  take(requests: readonly LeaseRequest[]): Promise<Grant[]> {
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      const timer = setTimeout(() => {
        if (this.waiting.delete(id)) reject(new Error(`the primary did not answer within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.waiting.set(id, { resolve, reject, timer });
      const msg: LeaseMessage = { type: REQ, id, requests: [...requests] };
      this.proc.send!(msg);
    });
  }

  close(): void {
    this.proc.off('message', this.onMessage);
    for (const [, w] of this.waiting) {
      clearTimeout(w.timer);
      w.reject(new Error('closing'));
    }
    this.waiting.clear();
  }
}

/**
 * In-memory counters shared by the workers of one host (the embedded default, no Redis): the primary holds them and
 * each worker leases units from it over the cluster IPC channel (lease-limiter.ts, ADR 0026), one message per turn of
 * the event loop for every subject that needs units. If the primary does not answer in time (or the channel is gone),
 * the worker's own counters decide.
 */
export class IpcLimiter implements Limiter {
  private readonly local = new MemoryLimiter('local');
  private readonly backend: IpcLeaseBackend;
  private readonly leases: LeaseLimiter;

  constructor(
    private readonly proc: NodeJS.Process = process,
    timeoutMs = 250,
    maxUnits = 64,
  ) {
    this.backend = new IpcLeaseBackend(proc, timeoutMs);
    this.leases = new LeaseLimiter(this.backend, { maxUnits });
  }

  check(subject: Subject): Promise<Decision> {
    if (!this.backend.available) return this.local.check(subject);
    return this.leases.check(subject).catch(() => this.local.checkSync(subject));
  }

  async close(): Promise<void> {
    await this.leases.close().catch(() => undefined);
    this.backend.close();
    await this.local.close();
  }
}

/** In the primary: grants the workers' leases from one MemoryLimiter. */
export function serveIpcLimiter(cluster: Cluster): MemoryLimiter {
  const limiter = new MemoryLimiter('memory');
  cluster.on('message', (worker: Worker, msg: unknown) => {
    const m = msg as LeaseMessage;
    if (m?.type !== REQ || !Array.isArray(m.requests)) return;
    const res: GrantMessage = { type: RES, id: m.id, grants: m.requests.map((r) => limiter.take(r)) };
    if (worker.isConnected()) worker.send(res);
  });
  return limiter;
}
