import type { RequestHandler } from 'express';
import type { Logger } from 'pino';

/** One JSON line per request once it finishes; never logs headers (keys stay out of logs). */
export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      logger.info(
        {
          reqId: req.headers['x-request-id'],
          method: req.method,
          path: req.originalUrl.split('?')[0],
          status: res.statusCode,
          ms: Math.round(ms * 100) / 100,
        },
        'request',
      );
    });
    next();
  };
}
