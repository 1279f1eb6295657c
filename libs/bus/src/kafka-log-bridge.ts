import { logLevel, type LogEntry, type logCreator } from 'kafkajs';
import type { Logger } from 'pino';

/** kafkajs log lines into pino. kafkajs reports retried, transient trouble as ERROR; the bus logs real failures. */
export function pinoLogCreator(logger: Logger): logCreator {
  const log = logger.child({ component: 'kafkajs' });
  return () =>
    ({ namespace, level, log: entry }: LogEntry) => {
      const { message, timestamp: _ts, logger: _name, ...fields } = entry;
      const line = { ...fields, namespace };
      // Handled here: after any failed publish the producer is replaced by a new one (new producer id), so
      // bounded retries never leave stale sequence numbers behind.
      if (message.startsWith('Limiting retries for the idempotent producer')) return log.debug(line, message);
      if (message.startsWith('KafkaJS v2.0.0 switched default partitioner')) return;
      switch (level) {
        case logLevel.ERROR:
        case logLevel.WARN:
          return log.warn(line, message);
        case logLevel.INFO:
          return log.info(line, message);
        default:
          return log.debug(line, message);
      }
    };
}

export function kafkajsLevel(logger: Logger): logLevel {
  if (logger.isLevelEnabled('trace')) return logLevel.DEBUG;
  if (logger.isLevelEnabled('info')) return logLevel.INFO;
  if (logger.isLevelEnabled('warn')) return logLevel.WARN;
  if (logger.isLevelEnabled('error')) return logLevel.ERROR;
  return logLevel.NOTHING;
}
