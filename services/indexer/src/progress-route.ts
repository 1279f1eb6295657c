import type { RequestHandler } from 'express';
import { InputError, ServiceUnavailableError } from '@bda/common';
import type { Indexer } from './indexer';
import { progressCovers } from './record-applier';

/** Longest a `/progress` request may wait for progress (`wait_ms`). */
export const MAX_PROGRESS_WAIT_MS = 5_000;

/** `GET /progress`: how far a topic is applied. */
export interface ProgressResponse {
  topic: string;
  /** Position of the last applied record (decimal string), null before any. */
  position: string | null;
  /** When the observer received that record (ISO, ms), null when unknown. */
  received_at: string | null;
  /** Whether everything received at or before `covers` is applied (false when `covers` was not given). */
  covered: boolean;
}

/**
 * `GET /progress?topic=stacks.node-events&covers=<ISO time or ms>&wait_ms=<0..5000>`: the applied progress of a topic,
 * answered as soon as the record received at `covers` or later is applied, or when `wait_ms` runs out (a long poll).
 * The observer's pacing asks it (ADR 0015); every indexer replica answers it, a standby from the stored position.
 */
export function progressRoute(indexer: Pick<Indexer, 'applierOf' | 'progress'>): RequestHandler {
  return async (req, res) => {
    const topic = single(req.query.topic, 'topic');
    if (topic === undefined) throw new InputError('topic is required (stacks.node-events or bitcoin.blocks)');
    if (!indexer.applierOf(topic)) {
      throw new InputError(`topic must be stacks.node-events or bitcoin.blocks; got ${JSON.stringify(topic)}`);
    }
    const coversText = single(req.query.covers, 'covers');
    const coversMs = coversText === undefined ? Infinity : parseTime(coversText);
    const waitText = single(req.query.wait_ms, 'wait_ms') ?? '0';
    if (!/^\d{1,5}$/.test(waitText) || Number(waitText) > MAX_PROGRESS_WAIT_MS) {
      throw new InputError(`wait_ms must be an integer from 0 to ${MAX_PROGRESS_WAIT_MS}; got ${JSON.stringify(waitText)}`);
    }
    let progress: Awaited<ReturnType<Indexer['progress']>>;
    try {
      progress = await indexer.progress(topic, coversMs, Number(waitText));
    } catch (err) {
      throw new ServiceUnavailableError(`cannot read the position: ${(err as Error).message}`);
    }
    const body: ProgressResponse = {
      topic,
      position: progress.position === null ? null : progress.position.toString(),
      received_at: progress.receivedAt,
      covered: progressCovers(progress, coversMs),
    };
    res.json(body);
  };
}

function single(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new InputError(`${name} must be given once, as a plain value`);
  return value;
}

/** An ISO 8601 time with its zone, or milliseconds since the epoch. */
function parseTime(text: string): number {
  const ms = /^\d{1,15}$/.test(text)
    ? Number(text)
    : /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/.test(text)
      ? Date.parse(text)
      : NaN;
  if (!Number.isFinite(ms)) {
    throw new InputError(
      `covers must be an ISO 8601 time with its zone or milliseconds since the epoch; got ${JSON.stringify(text)}`,
    );
  }
  return ms;
}
