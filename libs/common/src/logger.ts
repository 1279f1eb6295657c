import { pino, type Logger, type LoggerOptions } from 'pino';

/** JSON logs on stdout; secrets never reach a line thanks to the redact list. */
export function createLogger(name: string, level: string = process.env.LOG_LEVEL ?? 'info', extra: LoggerOptions = {}): Logger {
  return pino({
    name,
    level,
    redact: {
      paths: ['req.headers["x-api-key"]', 'headers["x-api-key"]', '*.apiKey', 'apiKey', 'key', '*.key'],
      censor: '[redacted]',
    },
    ...extra,
  });
}

export type { Logger } from 'pino';
