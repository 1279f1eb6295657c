import { parseJsonExact } from '@bda/common';

/**
 * The message every topic carries: `{path, received_at, body}`. The body is kept as the exact JSON text
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
