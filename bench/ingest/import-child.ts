/**
 * The importer as its own cold process, for `run.ts --via import`: connects to the bus of the environment (the
 * observer's variables), says `ready`, and on `go` (stdin) imports the TSV files given as arguments one after the
 * other, then prints `done` and the number of events, and exits when stdin closes. The parent times from `go`, so the process's own start-up (loading
 * tsx and the modules) is left out, as it is for the services the parent started before timing.
 */
import { createInterface } from 'node:readline';
import { TOPICS } from '@bda/bus';
import { createLogger } from '@bda/common';
import { createObserverBus, importEvents, loadObserverEnv, readNodeEventFiles } from '@bda/observer';

const env = loadObserverEnv();
const logger = createLogger('bench-import', 'warn');
const bus = createObserverBus(env, logger, 'bench-import');
await bus.ensureTopics([TOPICS.stacksNodeEvents, TOPICS.bitcoinBlocks]);
const producer = bus.producer();
await producer.connect();
console.log('ready');
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (line.trim() !== 'go') continue;
  const { imported } = await importEvents(readNodeEventFiles(process.argv.slice(2)), { producer, logger });
  // Stays up until stdin closes, so the parent can read this process's CPU time after the run.
  console.log(`done ${imported}`);
}
await bus.close();
