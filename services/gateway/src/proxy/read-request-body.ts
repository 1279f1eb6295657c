import type { IncomingMessage } from 'node:http';
import { DRAIN_LIMIT_BYTES, PayloadTooLargeError, readBody, RequestTimeoutError } from '@bda/common';

/**
 * Reads the client's request body whole, before any upstream is chosen: whatever the client does wrong while sending
 * it (goes away, stalls, sends less than it announced) ends here, where no member of a pool is involved.
 *
 * - `undefined`: no body. `'aborted'`: the client went away; there is nobody to answer.
 * - PayloadTooLargeError beyond `limit` (a body announced larger is read to its end and thrown away first, up to the
 *   drain limit, so that the client can read the answer).
 * - RequestTimeoutError when the whole body has not arrived `timeoutMs` after the request was handed over (a total, not
 *   an idle timeout: a client sending 1 byte a second never resets it). The answer closes the connection.
 */
export async function readRequestBody(
  req: IncomingMessage,
  limit: number,
  timeoutMs: number,
): Promise<Buffer | undefined | 'aborted'> {
  const declared = req.headers['content-length'];
  const chunked = req.headers['transfer-encoding'] !== undefined;
  const length = declared === undefined ? undefined : Number(declared);
  if (!chunked && (length === undefined || length === 0)) return undefined;
  if (length !== undefined && length > limit) {
    if (length <= DRAIN_LIMIT_BYTES) await within(readBody(req, 0), timeoutMs);
    throw tooLarge(limit);
  }
  if (limit === 0) throw tooLarge(0);
  const body = await within(readBody(req, limit), timeoutMs);
  if (body === 'too_large') throw tooLarge(limit);
  return body;
}

function within<T>(reading: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new RequestTimeoutError(`the request body did not arrive within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  return Promise.race([reading, timeout]).finally(() => clearTimeout(timer));
}

function tooLarge(limit: number): PayloadTooLargeError {
  return new PayloadTooLargeError(
    limit === 0 ? 'this route takes no request body' : `the request body exceeds the limit of ${limit} bytes`,
  );
}
