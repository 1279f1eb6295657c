/**
 * Runs a single-node KRaft Kafka broker from the pinned release jars (scripts/kafka/pom.xml) until SIGINT/SIGTERM,
 * for `make start` with a real broker and for the benches. Prints the bootstrap address on stdout once the broker
 * answers (everything else goes to stderr), e.g. `KAFKA_BROKERS=$(…)` in a script that reads the first line.
 *
 *   tsx scripts/kafka/start-kafka.ts [--data-dir .data/kafka] [--port 9092] [--fresh] [--heap 1g]
 */
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { startKafka } from '@bda/test-support';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string', default: join(import.meta.dirname, '../../.data/kafka') },
    port: { type: 'string' },
    fresh: { type: 'boolean', default: false },
    heap: { type: 'string' },
  },
});

const started = Date.now();
const kafka = await startKafka({
  dataDir: values['data-dir'],
  port: values.port ? Number(values.port) : undefined,
  fresh: values.fresh,
  heap: values.heap,
});
process.stderr.write(
  `kafka: broker up in ${Date.now() - started} ms (data ${kafka.dataDir}, log ${kafka.logFile}); Ctrl-C stops it\n`,
);
process.stdout.write(`${kafka.brokers}\n`);

let stopping = false;
const shutdown = (signal: string) => {
  if (stopping) return;
  stopping = true;
  process.stderr.write(`kafka: ${signal}, stopping the broker\n`);
  kafka.stop().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`kafka: stop failed: ${String(err)}\n`);
      process.exit(1);
    },
  );
};
process.on('SIGINT', () => shutdown('SIGINT'));
process.on('SIGTERM', () => shutdown('SIGTERM'));
