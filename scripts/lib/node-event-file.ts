import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

/** One recorded node event: a row of the fixtures' TSV format (id, received, path, JSON body). */
export interface RecordedEvent {
  id: string;
  receivedAt: string;
  path: string;
  body: string;
}

/** Reads a recorded-events TSV file in order. The body column is passed on exactly as recorded. */
export async function* readNodeEventFile(file: string): AsyncGenerator<RecordedEvent> {
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  let n = 0;
  for await (const line of lines) {
    n += 1;
    if (line.trim() === '') continue;
    const cols = line.split('\t');
    if (cols.length < 4) throw new Error(`${file}:${n}: expected 4 tab-separated columns, got ${cols.length}`);
    const [id, receivedAt, path] = cols as [string, string, string];
    yield { id, receivedAt, path, body: cols.slice(3).join('\t') };
  }
}

export async function countLines(file: string): Promise<number> {
  let n = 0;
  for await (const _ of readNodeEventFile(file)) n += 1;
  return n;
}
