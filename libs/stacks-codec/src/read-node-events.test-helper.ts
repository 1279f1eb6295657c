// Test-only: reads the recorded node events in test/fixtures/stacks-node-events (not exported by the package).
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- node JSON bodies, inspected loosely by tests
export type Json = any;

const FIXTURE_DIR = fileURLToPath(new URL('../../../test/fixtures/stacks-node-events/', import.meta.url));

interface RecordedEvent {
  file: string;
  id: number;
  path: string;
  body: Json;
}

export interface FixtureTx {
  file: string;
  eventId: number;
  path: string;
  /** The block (or microblock) body the transaction came in; null for mempool transactions. */
  block: Json;
  tx: { txid?: string; raw_tx: string; raw_result?: string; status?: string; burnchain_op?: unknown };
}

let cache: RecordedEvent[] | undefined;

/** Every recorded event of every fixture file, in file then id order. */
function readNodeEvents(): RecordedEvent[] {
  if (cache) return cache;
  const out: RecordedEvent[] = [];
  for (const file of readdirSync(FIXTURE_DIR)
    .filter((f) => f.endsWith('.tsv'))
    .sort()) {
    for (const line of readFileSync(FIXTURE_DIR + file, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const [id, , path, body] = line.split('\t');
      out.push({ file, id: Number(id), path: path!, body: JSON.parse(body!) });
    }
  }
  return (cache = out);
}

/** Transactions of `/new_block`, `/new_microblocks` and `/new_mempool_tx` (mempool ones carry only `raw_tx`). */
export function fixtureTransactions(): FixtureTx[] {
  const out: FixtureTx[] = [];
  for (const ev of readNodeEvents()) {
    if (ev.path === '/new_block' || ev.path === '/new_microblocks') {
      for (const tx of ev.body.transactions ?? []) out.push({ file: ev.file, eventId: ev.id, path: ev.path, block: ev.body, tx });
    } else if (ev.path === '/new_mempool_tx') {
      for (const raw of ev.body as string[]) {
        out.push({ file: ev.file, eventId: ev.id, path: ev.path, block: null, tx: { raw_tx: raw } });
      }
    }
  }
  return out;
}

/** The events of blocks and microblocks, each with its block body. */
export function fixtureBlockEvents(): { file: string; block: Json; event: Json }[] {
  const out: { file: string; block: Json; event: Json }[] = [];
  for (const ev of readNodeEvents()) {
    if (ev.path !== '/new_block' && ev.path !== '/new_microblocks') continue;
    for (const event of ev.body.events ?? []) out.push({ file: ev.file, block: ev.body, event });
  }
  return out;
}
