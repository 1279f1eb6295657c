import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

/** One recorded node event: a row of the fixtures' TSV format (id, received, path, JSON body). */
export interface RecordedEvent {
  id: string;
  receivedAt: string;
  path: string;
  body: string;
}

export interface ReadNodeEventFileOptions {
  /**
   * The file is PostgreSQL `COPY … TO` text (what the reference API's `export-events` writes): every column has its
   * backslash escapes undone (`\\` → `\`, `\t`, `\n`, …), and a tab always separates columns. Without it the columns
   * are taken as they are (the fixtures' format), and the body is everything after the third tab.
   */
  copyEscaped?: boolean;
}

/** Reads several recorded-events files one after the other, as one stream (see `readNodeEventFile`). */
export async function* readNodeEventFiles(files: string[], opts: ReadNodeEventFileOptions = {}): AsyncGenerator<RecordedEvent> {
  for (const file of files) yield* readNodeEventFile(file, opts);
}

/**
 * Reads a recorded-events TSV file in order; a name ending in `.gz` is read through gunzip (archives of a mainnet
 * node's events are large). The body column is passed on exactly as recorded.
 */
export async function* readNodeEventFile(file: string, opts: ReadNodeEventFileOptions = {}): AsyncGenerator<RecordedEvent> {
  const lines = createInterface({ input: openText(file), crlfDelay: Infinity });
  let n = 0;
  for await (const line of lines) {
    n += 1;
    if (line.trim() === '') continue;
    const cols = line.split('\t');
    if (opts.copyEscaped) {
      if (cols.length !== 4) throw new Error(`${file}:${n}: expected 4 tab-separated COPY columns, got ${cols.length}`);
      const [id, receivedAt, path, body] = cols.map((c, i) => {
        if (c === '\\N') throw new Error(`${file}:${n}: column ${i + 1} is NULL`);
        return unescapeCopyText(c);
      }) as [string, string, string, string];
      yield { id, receivedAt, path, body };
      continue;
    }
    if (cols.length < 4) throw new Error(`${file}:${n}: expected 4 tab-separated columns, got ${cols.length}`);
    const [id, receivedAt, path] = cols as [string, string, string];
    yield { id, receivedAt, path, body: cols.slice(3).join('\t') };
  }
}

const COPY_ESCAPE = /\\(?:([0-7]{1,3})|x([0-9a-fA-F]{1,2})|([\s\S]))/g;
const COPY_CONTROL: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };

/** One column of PostgreSQL's COPY text format, unescaped (`\\` → `\`, `\n` → newline, octal and hex bytes). */
export function unescapeCopyText(column: string): string {
  if (!column.includes('\\')) return column;
  return column.replace(COPY_ESCAPE, (_m, octal: string | undefined, hex: string | undefined, char: string | undefined) => {
    if (octal !== undefined) return String.fromCharCode(parseInt(octal, 8));
    if (hex !== undefined) return String.fromCharCode(parseInt(hex, 16));
    return COPY_CONTROL[char!] ?? char!;
  });
}

function openText(file: string): Readable {
  if (!file.endsWith('.gz')) return createReadStream(file, { encoding: 'utf8' });
  const raw = createReadStream(file);
  const gunzip = createGunzip();
  raw.on('error', (err) => gunzip.destroy(err));
  raw.pipe(gunzip);
  gunzip.setEncoding('utf8');
  return gunzip;
}

export async function countLines(file: string): Promise<number> {
  let n = 0;
  for await (const _ of readNodeEventFile(file)) n += 1;
  return n;
}

const RECORDED_TIME = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * The receive time of a recorded row (PostgreSQL text such as `2021-08-05 16:38:39.859937+00`, or ISO 8601), or
 * null when the column is not such a timestamp. Sub-millisecond digits are dropped; no zone means UTC.
 */
export function parseRecordedTime(text: string): Date | null {
  const m = RECORDED_TIME.exec(text.trim());
  if (!m) return null;
  const [, day, time, fraction = '', zone = 'Z'] = m;
  const ms = fraction ? `.${fraction.slice(1, 4).padEnd(3, '0')}` : '';
  const offset =
    zone === 'Z'
      ? 'Z'
      : /^[+-]\d{2}$/.test(zone)
        ? `${zone}:00`
        : zone.includes(':')
          ? zone
          : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const date = new Date(`${day}T${time}${ms}${offset}`);
  return Number.isNaN(date.getTime()) ? null : date;
}
