/**
 * Imports recorded node events into the bus without a node:
 *
 *   npm run import -- <file.tsv[.gz]>... [--from-id N] [--skip-invalid] [--copy-escaped] [--batch-events 500] [--batch-bytes 8mb]
 *
 * The file is the TSV the fixtures use, which is also what the reference API's `event_observer_requests` table holds
 * (id, receive time, path, JSON body): an archive of a node's events, or the export of an existing deployment being
 * migrated (`--copy-escaped` for a file in PostgreSQL's COPY text format, as the reference's `export-events` writes).
 * The bus is the observer's (KAFKA_BROKERS, else the PostgreSQL log in BUS_DATABASE_URL / DATABASE_URL).
 * Each row is checked as the observer checks a POST; the indexer then applies the events as if a node had sent them.
 * Several files are imported in the order given, as one stream (an archive split into parts).
 * Run it into a system no node is posting to: the bus keeps one order, and a node's live events would interleave.
 */
import { statSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createLogger } from '@bda/common';
import { TOPICS } from '@bda/bus';
import { loadObserverEnv, type ObserverEnv } from '../env';
import { parseByteSize } from '../event-intake';
import { ImportStoppedError, importEvents } from '../import-events';
import { readNodeEventFiles } from '../node-event-file';
import { createObserverBus } from '../observer-bus';

const USAGE =
  'usage: npm run import -- <file.tsv[.gz]>... [--from-id N] [--skip-invalid] [--copy-escaped] [--batch-events 500] [--batch-bytes 8mb]';

export interface ImportCliIo {
  out: (line: string) => void;
  err: (line: string) => void;
  signal?: AbortSignal;
}

/** Runs one import; returns the process exit code (0 done, 1 stopped or failed, 2 usage). */
export async function runImportCommand(argv: string[], env: ObserverEnv, io: ImportCliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        'from-id': { type: 'string' },
        'skip-invalid': { type: 'boolean', default: false },
        'copy-escaped': { type: 'boolean', default: false },
        'batch-events': { type: 'string', default: '500' },
        'batch-bytes': { type: 'string', default: '8mb' },
      },
    });
  } catch (err) {
    io.err(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const files = positionals;
  const fromId = values['from-id'];
  const batchEvents = Number(values['batch-events']);
  let batchBytes: number;
  try {
    batchBytes = parseByteSize(values['batch-bytes']!);
  } catch (err) {
    io.err(`--batch-bytes: ${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  if (files.length === 0) {
    io.err(USAGE);
    return 2;
  }
  if (fromId !== undefined && !/^\d+$/.test(fromId)) {
    io.err(`--from-id: expected a row id (a non-negative integer), got ${JSON.stringify(fromId)}\n${USAGE}`);
    return 2;
  }
  if (!Number.isInteger(batchEvents) || batchEvents < 1 || batchEvents > 100_000) {
    io.err(`--batch-events: expected an integer from 1 to 100000\n${USAGE}`);
    return 2;
  }

  // Every file is checked before anything is published: a typo in the last part must not leave half an import.
  for (const file of files) {
    try {
      if (!statSync(file).isFile()) throw new Error('not a file');
    } catch (err) {
      io.err(`cannot read ${file}: ${(err as Error).message}`);
      return 1;
    }
  }

  const logger = createLogger('import', env.LOG_LEVEL === 'info' ? 'warn' : env.LOG_LEVEL);
  const bus = createObserverBus(env, logger, 'importer');
  let lastId: string | undefined;
  let lastReport = Date.now();
  try {
    await bus.ensureTopics([TOPICS.stacksNodeEvents, TOPICS.bitcoinBlocks]);
    const producer = bus.producer();
    await producer.connect();
    const summary = await importEvents(readNodeEventFiles(files, { copyEscaped: values['copy-escaped'] }), {
      producer,
      logger,
      maxBatchEvents: batchEvents,
      maxBatchBytes: batchBytes,
      fromId: fromId === undefined ? undefined : BigInt(fromId),
      onInvalid: values['skip-invalid'] ? 'skip' : 'stop',
      signal: io.signal,
      onProgress: (imported, last) => {
        lastId = last.id;
        if (Date.now() - lastReport >= 1_000) {
          lastReport = Date.now();
          io.err(`imported ${imported} events (up to id ${last.id})`);
        }
      },
    });
    for (const bad of summary.invalid) io.err(`skipped invalid row id ${bad.id} (${bad.path}): ${bad.reason}`);
    const secs = summary.ms / 1000;
    io.out(
      `imported ${summary.imported} events from ${files.join(', ')} in ${secs.toFixed(2)} s (${(summary.imported / Math.max(secs, 0.001)).toFixed(0)} events/s, ${summary.batches} batches, ${(summary.bytes / 1024 / 1024).toFixed(1)} MiB, ${summary.retries} retries, ${summary.invalid.length} invalid rows skipped, ${summary.skippedBeforeFrom} rows before --from-id)`,
    );
    return 0;
  } catch (err) {
    if (err instanceof ImportStoppedError) io.err(err.message);
    else {
      const resume = lastId && /^\d+$/.test(lastId) ? `; resume with --from-id ${BigInt(lastId) + 1n}` : '';
      io.err(`import failed: ${(err as Error).message}${lastId ? ` (durable up to id ${lastId}${resume})` : ''}`);
    }
    return 1;
  } finally {
    await bus.close();
  }
}

async function main(): Promise<void> {
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort(new Error('interrupted')));
  process.once('SIGTERM', () => controller.abort(new Error('interrupted')));
  process.exitCode = await runImportCommand(process.argv.slice(2), loadObserverEnv(), {
    out: (line) => console.log(line),
    err: (line) => console.error(line),
    signal: controller.signal,
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
