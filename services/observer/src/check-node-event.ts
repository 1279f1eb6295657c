import { z } from 'zod';
import { InputError } from '@bda/common';
import { TOPICS } from '@bda/bus';
import { describeIssues, newBitcoinBlockSchema, NODE_EVENT_SCHEMAS } from './payload-schemas';

/** What goes on the bus for one accepted node event. */
export interface CheckedNodeEvent {
  /** Logical topic (without any prefix). */
  topic: string;
  /** Kafka key: the chain the event belongs to. */
  key: string;
  /** The JSON body to carry in the envelope: the exact bytes received whenever they are JSON. */
  body: Buffer;
  /** False for a path this observer does not know (kept raw, so a newer node never stalls on us). */
  known: boolean;
}

export interface CheckOptions {
  /** The query string (without `?`): `height=` of a raw `/new_bitcoin_block`. */
  query?: string;
  /** The request's content type: `application/octet-stream` means a raw serialized bitcoin block. */
  contentType?: string;
}

/**
 * The one check every intake runs (the HTTP observer and the file importer): the body of a known path must match
 * its schema (`InputError` naming the problem otherwise); unknown paths are accepted as they are.
 */
export function checkNodeEvent(path: string, raw: Buffer, opts: CheckOptions = {}): CheckedNodeEvent {
  if (path === '/new_bitcoin_block') {
    return { topic: TOPICS.bitcoinBlocks, key: 'bitcoin', body: bitcoinBlockBody(raw, opts), known: true };
  }
  const schema = NODE_EVENT_SCHEMAS[path];
  if (!schema) {
    const body = isJson(raw) ? raw : Buffer.from(JSON.stringify(raw.toString('utf8')));
    return { topic: TOPICS.stacksNodeEvents, key: 'stacks', body, known: false };
  }
  const parsed = schema.safeParse(parseJson(raw));
  if (!parsed.success) throw new InputError(`body of ${path}: ${describeIssues(parsed.error)}`);
  return { topic: TOPICS.stacksNodeEvents, key: 'stacks', body: raw, known: true };
}

function bitcoinBlockBody(raw: Buffer, opts: CheckOptions): Buffer {
  if ((opts.contentType ?? '').startsWith('application/octet-stream')) {
    // Raw serialized block bytes, the height in `?height=`.
    const height = z.coerce
      .number()
      .int()
      .nonnegative()
      .safeParse(new URLSearchParams(opts.query ?? '').get('height') ?? undefined);
    if (!height.success) {
      throw new InputError('query parameter height: a block height (non-negative integer) is required with a raw block body');
    }
    if (raw.length === 0) throw new InputError('body: the serialized block is empty');
    return Buffer.from(JSON.stringify({ block_height: height.data, raw_block: raw.toString('hex') }));
  }
  const parsed = newBitcoinBlockSchema.safeParse(parseJson(raw));
  if (!parsed.success) throw new InputError(`body: ${describeIssues(parsed.error)}`);
  return raw;
}

function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) throw new InputError('body: a JSON body is required');
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new InputError(`body: not valid JSON (${(err as Error).message})`);
  }
}

function isJson(raw: Buffer): boolean {
  if (raw.length === 0) return false;
  try {
    JSON.parse(raw.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}
