/**
 * Whether `err` says that PostgreSQL could not be reached or dropped the connection, as opposed to refusing the
 * statement. The indexer retries such failures; the api answers them 503. One list for both, so that a failure the
 * indexer waits out is never a 500 in the api.
 *
 * node-postgres reports a connection that ends mid-query without an SQLSTATE, only a message (and knex, when the
 * ROLLBACK after it fails too, reports that one instead: `ROLLBACK - Connection terminated unexpectedly`).
 */
export function isConnectionFailure(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { code?: unknown; message?: unknown; name?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  // A protocol violation (08P01) comes from the statement itself (e.g. more than 65,535 bind parameters).
  if (code === '08P01') return false;
  // Connection exceptions; admin or crash shutdown, cannot connect now; too many connections.
  if (/^08/.test(code) || /^57P0[1-3]$/.test(code) || code === '53300') return true;
  if (NETWORK_CODES.has(code)) return true;
  // The pool found no connection in time.
  if (e.name === 'KnexTimeoutError') return true;
  return typeof e.message === 'string' && CONNECTION_MESSAGES.test(e.message);
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN']);

const CONNECTION_MESSAGES =
  /Connection terminated|Client has encountered a connection error|terminating connection|timeout exceeded when trying to connect/i;
