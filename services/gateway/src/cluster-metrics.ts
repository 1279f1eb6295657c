import type { Cluster } from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

const REQ = 'gateway:metrics:req';
const RES = 'gateway:metrics:res';

/**
 * With node:cluster each worker has its own counters; `/metrics` on any worker answers for the whole host:
 * the worker asks the primary, which gathers every worker's registry (prom-client's AggregatorRegistry).
 */
export function serveClusterMetrics(cluster: Cluster): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, msg: { type?: string; id?: number }) => {
    if (msg?.type !== REQ) return;
    aggregator.clusterMetrics().then(
      (text) => worker.isConnected() && worker.send({ type: RES, id: msg.id, text }),
      (err: Error) => worker.isConnected() && worker.send({ type: RES, id: msg.id, error: err.message }),
    );
  });
}

/** In a worker: makes its registry collectable by the primary and returns the `/metrics` text source. */
export function workerMetrics(registry: Registry): () => Promise<string> {
  AggregatorRegistry.setRegistries([registry]);
  // The constructor installs the worker's listener for the primary's collection requests.
  new AggregatorRegistry();
  let next = 1;
  return () =>
    new Promise((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => {
        process.off('message', onMessage);
        reject(new Error('the primary did not answer the metrics request'));
      }, 10_000);
      const onMessage = (msg: { type?: string; id?: number; text?: string; error?: string }) => {
        if (msg?.type !== RES || msg.id !== id) return;
        clearTimeout(timer);
        process.off('message', onMessage);
        if (msg.error !== undefined) reject(new Error(msg.error));
        else resolve(msg.text ?? '');
      };
      process.on('message', onMessage);
      process.send?.({ type: REQ, id });
    });
}
