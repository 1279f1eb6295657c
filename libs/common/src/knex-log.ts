/** knex's `log` option: where its own warnings and debug messages go. */
export interface KnexLogFunctions {
  warn(message: unknown): void;
  error(message: unknown): void;
  deprecate(message: unknown): void;
  debug(message: unknown): void;
}

/** The part of a pino logger knex's messages need. */
export interface KnexLogger {
  debug(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/**
 * knex's `log` option on a JSON logger. knex otherwise prints its warnings to the console as text of two lines each,
 * among the services' JSON lines: one for every failed connection attempt while PostgreSQL is down, which the services
 * already report in their own words (a 503 logged by the api, a retried batch by the indexer). Those go to debug.
 */
export function knexLog(logger: KnexLogger): KnexLogFunctions {
  const text = (message: unknown) => (message instanceof Error ? message.message : String(message));
  const warn = (message: unknown) => {
    const msg = text(message);
    if (/acquire connection|ECONNREFUSED|connection terminated|timeout acquiring/i.test(msg)) {
      logger.debug({ source: 'knex' }, msg);
    } else logger.warn({ source: 'knex' }, msg);
  };
  return { warn, error: warn, deprecate: warn, debug: (message: unknown) => logger.debug({ source: 'knex' }, text(message)) };
}
