import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

const VALID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Reuses a sane incoming `x-request-id` or makes one, and echoes it on the response. */
export function requestId(): RequestHandler {
  return (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && VALID.test(incoming) ? incoming : randomUUID();
    req.headers['x-request-id'] = id;
    res.setHeader('x-request-id', id);
    next();
  };
}

/**
 * The id `requestId()` would use for a request with this `x-request-id` header: the header when sane, else a new
 * one. For servers that answer some paths without express.
 */
export function resolveRequestId(incoming: string | string[] | undefined): string {
  return typeof incoming === 'string' && VALID.test(incoming) ? incoming : randomUUID();
}
