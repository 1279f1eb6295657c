import type { IncomingMessage } from 'node:http';

/**
 * How much of a refused body a service reads and throws away before it answers 413. A client that is still sending
 * when the answer comes and the connection closes gets a failed write (EPIPE) or a reset instead of the answer: about
 * one upload in ten, measured on the gateway. Past this, the answer goes at once and the connection is closed.
 */
export const DRAIN_LIMIT_BYTES = 8 * 1024 * 1024;

/**
 * The slowest a body may arrive: it is `too_slow` once more than `graceMs` plus the time `minBytesPerSecond` would take
 * for what has arrived so far have passed since reading began. A sender of 1 byte/s is cut off shortly after
 * `graceMs`; an 80 MB block at any rate above the minimum passes, however long it takes in all.
 */
export interface BodyPace {
  graceMs: number;
  minBytesPerSecond: number;
}

/**
 * Reads a body of at most `limit` bytes. A longer one is `too_large`, settled once it has been read to its end and
 * thrown away, up to `drainLimit` bytes in all; past that it settles at once with the body unread, and the caller's
 * answer should close the connection (`req.complete` stays false). `aborted` when the client goes away first.
 * With a `pace`, a body arriving slower than it allows is `too_slow`, settled with the rest unread (close the
 * connection in the answer, as for an undrained `too_large`).
 */
export function readBody(req: IncomingMessage, limit: number, drainLimit?: number): Promise<Buffer | 'too_large' | 'aborted'>;
export function readBody(
  req: IncomingMessage,
  limit: number,
  drainLimit: number,
  pace: BodyPace,
): Promise<Buffer | 'too_large' | 'aborted' | 'too_slow'>;
export function readBody(
  req: IncomingMessage,
  limit: number,
  drainLimit = DRAIN_LIMIT_BYTES,
  pace?: BodyPace,
): Promise<Buffer | 'too_large' | 'aborted' | 'too_slow'> {
  return new Promise((resolve) => {
    let chunks: Buffer[] = [];
    let size = 0;
    let timer: NodeJS.Timeout | undefined;
    const settle = (result: Buffer | 'too_large' | 'aborted' | 'too_slow') => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onGone);
      req.off('aborted', onGone);
      req.off('close', onGone);
      if (result === 'too_large') req.resume();
      resolve(result);
    };
    const onData = (c: Buffer) => {
      size += c.length;
      if (size <= limit) chunks.push(c);
      else if (size > drainLimit) settle('too_large');
      else chunks = [];
    };
    const onEnd = () => settle(size > limit ? 'too_large' : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    const onGone = () => settle('aborted');
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onGone);
    req.on('aborted', onGone);
    req.on('close', onGone);
    if (pace) {
      const started = Date.now();
      const check = () => {
        const deadline = started + pace.graceMs + (size / pace.minBytesPerSecond) * 1000;
        const left = deadline - Date.now();
        if (left <= 0) settle('too_slow');
        else timer = setTimeout(check, left);
      };
      timer = setTimeout(check, pace.graceMs);
    }
  });
}
