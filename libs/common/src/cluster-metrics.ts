import type { Cluster } from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

/**
 * Prometheus metrics of a node:cluster service: each worker has its own registry; `/metrics` on any worker answers
 * for the whole host — the worker asks the primary, which gathers every worker's registry (prom-client's
 * AggregatorRegistry). `channel` names the IPC messages (one per service).
 */
export function serveClusterMetrics(cluster: Cluster, channel: string): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, msg: { type?: string; id?: number }) => {
    if (msg?.type !== `${channel}:metrics:req`) return;
    aggregator.clusterMetrics().then(
      (text) => worker.isConnected() && worker.send({ type: `${channel}:metrics:res`, id: msg.id, text }),
      (err: Error) => worker.isConnected() && worker.send({ type: `${channel}:metrics:res`, id: msg.id, error: err.message }),
    );
  });
}

/** In a worker: makes its registry collectable by the primary and returns the source of the `/metrics` text. */
export function clusterWorkerMetrics(registry: Registry, channel: string, timeoutMs = 10_000): () => Promise<string> {
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
      }, timeoutMs);
      const onMessage = (msg: { type?: string; id?: number; text?: string; error?: string }) => {
        if (msg?.type !== `${channel}:metrics:res` || msg.id !== id) return;
        clearTimeout(timer);
        process.off('message', onMessage);
        if (msg.error !== undefined) reject(new Error(msg.error));
        else resolve(msg.text ?? '');
      };
      process.on('message', onMessage);
      process.send?.({ type: `${channel}:metrics:req`, id });
    });
}
