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
