import type { Logger } from 'pino';
import { withTimeout } from './with-timeout';

type Closer = () => Promise<void> | void;

/**
 * Ordered shutdown: handlers run by phase (intake first, the database last), each with a timeout.
 * `isShuttingDown` lets readiness turn 503 the moment shutdown starts.
 */
export class ShutdownRegistry {
  static readonly PHASES = ['intake', 'work', 'clients', 'database'] as const;
  private readonly handlers: Array<{ phase: ShutdownPhase; name: string; close: Closer }> = [];
  private shuttingDown = false;
  private done?: Promise<void>;

  constructor(
    private readonly logger: Logger,
    private readonly timeoutMs = 15_000,
  ) {}

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  register(phase: ShutdownPhase, name: string, close: Closer): void {
    this.handlers.push({ phase, name, close });
  }

  /** Installs SIGTERM/SIGINT handlers that run the shutdown and exit. */
  installSignalHandlers(): void {
    const onSignal = (signal: NodeJS.Signals) => {
      this.logger.info({ signal }, 'shutdown requested');
      void this.shutdown().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    // A loader (tsx) may have its own listeners that exit at once: the ordered shutdown replaces them.
    process.removeAllListeners('SIGTERM');
    process.removeAllListeners('SIGINT');
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  }

  shutdown(): Promise<void> {
    this.done ??= this.run();
    return this.done;
  }

  private async run(): Promise<void> {
    this.shuttingDown = true;
    for (const phase of ShutdownRegistry.PHASES) {
      const inPhase = this.handlers.filter((h) => h.phase === phase);
      await Promise.all(
        inPhase.map(async (h) => {
          try {
            await withTimeout(this.timeoutMs, h.close);
            this.logger.info({ phase, name: h.name }, 'closed');
          } catch (err) {
            this.logger.error({ phase, name: h.name, err }, 'close failed');
          }
        }),
      );
    }
  }
}

export type ShutdownPhase = (typeof ShutdownRegistry.PHASES)[number];
