import express, { type ErrorRequestHandler, type Router } from 'express';
import { InputError, PayloadTooLargeError } from '@bda/common';
import { markDeprecated } from '../../deprecated';

/**
 * The reference API's answer to every fee-rate request: a fixed rate, micro-STX per byte (its `FEE_RATE`; it reads
 * nothing of the transaction, and points clients to the node's `/v2/fees/transaction` instead).
 */
const FEE_RATE = 400;

/** Largest body accepted: a serialized transaction is at most a few hundred KiB; the gateway forwards at most 1 MiB. */
const BODY_LIMIT = '1mb';

/** The reference's `FeeRate` answer. */
interface FeeRateResponse {
  fee_rate: number;
}

/**
 * `POST /extended/v1/fee_rate` (deprecated in the reference): a JSON object with the serialized transaction as a
 * string `transaction`, answered with the reference's fixed rate. A body that is not such an object is a 400 naming
 * the problem (413 when too large), never a 5xx.
 */
export function feeRateRouter(): Router {
  const router = express.Router();
  const json = express.json({ limit: BODY_LIMIT, strict: true, type: () => true });

  router.post(
    '/extended/v1/fee_rate',
    (req, _res, next) => {
      if (!req.is('application/json')) {
        throw new InputError(
          `body: must be JSON sent with content-type application/json, got content-type ${JSON.stringify(req.get('content-type') ?? '')}`,
        );
      }
      next();
    },
    json,
    (req, res) => {
      markDeprecated(res);
      const body: unknown = req.body;
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw new InputError('body: must be a JSON object with a string field transaction');
      }
      const tx = (body as Record<string, unknown>)['transaction'];
      if (typeof tx !== 'string') {
        throw new InputError(`body: field transaction is required and must be a string (a serialized transaction)`);
      }
      const answer: FeeRateResponse = { fee_rate: FEE_RATE };
      res.json(answer);
    },
  );

  /** body-parser's own failures (bad JSON, too large, bad charset, aborted) as the api's 400 / 413. */
  const onBodyError: ErrorRequestHandler = (err: unknown, _req, _res, next) => {
    const type = typeof err === 'object' && err !== null ? (err as { type?: unknown }).type : undefined;
    if (typeof type !== 'string') return next(err);
    if (type === 'entity.too.large') return next(new PayloadTooLargeError(`body: larger than the ${BODY_LIMIT} accepted`));
    next(new InputError(`body: must be a JSON object with a string field transaction (${(err as Error).message})`));
  };
  router.use('/extended/v1/fee_rate', onBodyError);
  return router;
}
