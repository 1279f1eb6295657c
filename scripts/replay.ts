/**
 * Replays recorded node events (the TSV format of test/fixtures/stacks-node-events) into an observer,
 * in order, like a node: `npm run replay -- <file.tsv> [--observer URL]`.
 */
import { parseArgs } from 'node:util';
import { countLines } from '@bda/observer';
import { replayFile } from './lib/replay-events';

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { observer: { type: 'string', default: process.env.OBSERVER_URL ?? 'http://127.0.0.1:3700' } },
  });
  const file = positionals[0];
  if (!file) {
    console.error('usage: npm run replay -- <file.tsv> [--observer URL]');
    process.exit(2);
  }
  const total = await countLines(file);
  const tty = process.stderr.isTTY;
  let lastDraw = 0;
  const draw = (done: number, note = '') => {
    const now = Date.now();
    if (done !== total && now - lastDraw < 100) return;
    lastDraw = now;
    const width = 30;
    const filled = Math.round((done / Math.max(total, 1)) * width);
    const line = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} events ${note}`;
    if (tty) process.stderr.write(`\r${line.padEnd(100)}`);
    else if (done === total || done % 100 === 0) process.stderr.write(`${line}\n`);
  };
  const summary = await replayFile(file, {
    observerUrl: values.observer!,
    onProgress: (done) => draw(done),
    onRetry: (event, reason, attempt) => {
      if (attempt === 1 || attempt % 10 === 0)
        process.stderr.write(`${tty ? '\n' : ''}retrying event ${event.id} (${event.path}): ${reason}\n`);
    },
  });
  if (tty) process.stderr.write('\n');
  const secs = summary.ms / 1000;
  console.log(
    `replayed ${summary.events} events from ${file} in ${secs.toFixed(2)} s (${(summary.events / Math.max(secs, 0.001)).toFixed(1)} events/s, ${summary.retries} retries)`,
  );
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
