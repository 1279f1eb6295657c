import { destination, pino, type Logger, type LoggerOptions } from 'pino';

/**
 * JSON logs on stdout; secrets never reach a line thanks to the redact list. Lines are written synchronously: pino's
 * default asynchronous destination can still have a line in flight on a worker thread when the process exits after
 * its ordered shutdown, and that line then arrives after later ones or not at all (seen under load with the api's
 * cluster workers sharing one pipe). One write per line costs the same syscall the async path makes.
 */
export function createLogger(name: string, level: string = process.env.LOG_LEVEL ?? 'info', extra: LoggerOptions = {}): Logger {
  return pino(
    {
      name,
      level,
      redact: {
        paths: ['req.headers["x-api-key"]', 'headers["x-api-key"]', '*.apiKey', 'apiKey', 'key', '*.key'],
        censor: '[redacted]',
      },
      ...extra,
    },
    destination({ dest: 1, sync: true }),
  );
}

export type { Logger } from 'pino';

/**
 * The access log's own logger: one line per request through an asynchronous destination, so that under load the
 * lines that pile up during one write go out together in the next (one syscall for many requests, where a
 * synchronous line costs one each: 5 % of the api's CPU on a name lookup). Each write holds whole lines and at most
 * 4096 bytes, so the lines of cluster workers sharing one pipe never interleave. `flush` writes what is pending: the
 * process's shutdown registry calls it last, after the server closed.
 */
export function createAccessLogger(
  name: string,
  level: string = process.env.LOG_LEVEL ?? 'info',
): { logger: Logger; flush(): void } {
  const dest = destination({ dest: 1, sync: false, maxWrite: 4096 });
  return { logger: pino({ name, level }, dest), flush: () => dest.flushSync() };
}
