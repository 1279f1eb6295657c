import { parseJsonExact } from '@bda/common';

/**
 * The value of every record on every topic: `{path, received_at, body}`. The body is kept as the exact JSON text
 * the sender posted (unknown fields and all), spliced in without re-serializing.
 */
export interface Envelope<TBody = unknown> {
  path: string;
  received_at: string;
  body: TBody;
}

/** `rawJsonBody` must already be valid JSON (the observer parsed it). */
export function encodeEnvelope(path: string, receivedAt: Date, rawJsonBody: Buffer | string): Buffer {
  const head = `{"path":${JSON.stringify(path)},"received_at":${JSON.stringify(receivedAt.toISOString())},"body":`;
  const body = typeof rawJsonBody === 'string' ? Buffer.from(rawJsonBody) : rawJsonBody;
  return Buffer.concat([Buffer.from(head), body.length > 0 ? body : Buffer.from('null'), Buffer.from('}')]);
}

/** Integers a JS number cannot hold exactly (u64/u128 amounts) come back as decimal strings: see `parseJsonExact`. */
export function decodeEnvelope<TBody = unknown>(value: Buffer): Envelope<TBody> {
  const parsed = parseJsonExact(value.toString('utf8')) as Envelope<TBody>;
  if (typeof parsed !== 'object' || parsed === null || typeof parsed.path !== 'string') {
    throw new Error('not a bus envelope');
  }
  return parsed;
}

const RECEIVED_AT_KEY = Buffer.from('"received_at":"');
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z$/;

/**
 * The envelope's `received_at` read from its first bytes, without parsing the body: `encodeEnvelope` writes it before
 * the body, so it sits within the first few hundred bytes even of an 80 MB block. Null when it is not there in that
 * form (an envelope written by something else), which callers treat as unknown.
 */
export function peekReceivedAt(value: Buffer): string | null {
  const head = value.subarray(0, 4096);
  const at = head.indexOf(RECEIVED_AT_KEY);
  if (at === -1) return null;
  const start = at + RECEIVED_AT_KEY.length;
  const end = head.indexOf(0x22, start);
  if (end === -1) return null;
  const text = head.toString('latin1', start, end);
  return ISO_TIME.test(text) ? text : null;
}
