import { KafkaBus } from '@bda/bus';
import { createLogger } from '@bda/common';

/** Produces `messages` records one at a time (acks from all replicas, as the observer does) while a consumer reads. */
export async function warmBroker(brokers: string, messages: number): Promise<void> {
  const bus = new KafkaBus({
    brokers: brokers.split(','),
    clientId: 'bench-warm-up',
    logger: createLogger('bench', 'silent'),
    topicPrefix: `warm-up-${process.pid}`,
  });
  const t0 = performance.now();
  try {
    await bus.ensureTopics(['warm-up']);
    const producer = bus.producer();
    await producer.connect();
    await bus.consumer('warm-up').start({ topic: 'warm-up', lastApplied: async () => null, handleBatch: async () => {} });
    const value = Buffer.alloc(20_000, 'x');
    for (let i = 0; i < messages; i++) {
      await producer.publish('warm-up', [{ key: 'warm-up', value: value.subarray(0, 500 + ((i * 997) % 19_500)) }]);
    }
  } finally {
    await bus.close();
  }
  console.log(`broker warmed with ${messages} messages in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}
