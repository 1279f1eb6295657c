import { writeSync } from 'node:fs';

/** Where hand-built access lines go: one line at a time, each ending in `\n`. */
export interface AccessSink {
  write(line: string): unknown;
}

/** Writes bytes to a file descriptor, as `fs.writeSync`: how many were written, or throws (EAGAIN: try again later). */
export type WriteFd = (fd: number, buf: Buffer) => number;

export interface AccessWriterOptions {
  /** The access log's file descriptor (1: stdout). */
  fd: number;
  /**
   * Largest single write in bytes, always whole lines: at most PIPE_BUF (4096 on Linux), so that the lines of several
   * workers on one pipe never interleave (a pipe write of up to PIPE_BUF bytes is atomic).
   */
  maxWrite?: number;
  /** After EAGAIN (a non-blocking destination that is full), the wait before trying again, in ms. */
  retryMs?: number;
  writeFd?: WriteFd;
  /** A write that failed otherwise than EAGAIN (e.g. EPIPE: nobody reads the log any more): its lines are dropped. */
  onError?: (err: Error) => void;
}

/**
 * The access log's writer (the gateway's and the api's): the lines of one event-loop turn are written together right
 * after it (`setImmediate`), with plain `write(2)` calls on the process's own thread, in chunks of whole lines of at
 * most `maxWrite` bytes.
 *
 * Why not pino's asynchronous destination (sonic-boom, `sync: false`): each of its writes goes through libuv's thread
 * pool and comes back through the event loop. When the gateway is not saturated — every request its own turn, as in
 * front of an api that is itself the bottleneck — that was two thread hand-offs and a loop wake-up more per request,
 * about a quarter of the gateway's CPU per request in bench/gateway/deployed-reads (issue 26, ADR 0029). And not a
 * synchronous destination either (the api's before, ADR 0029): one `write(2)` per line was 6 % of the api's CPU on a
 * name lookup, plus pino's serializer and redaction around it.
 *
 * Blocking: like pino's synchronous destinations and Node's own stdout on Linux, a write to a full blocking pipe waits
 * for its reader. A non-blocking destination that is full (EAGAIN) keeps its lines and is tried again after `retryMs`;
 * the rest of a partial write follows at once. Nothing is dropped, unless a write fails otherwise (the log's reader is gone: EPIPE),
 * which drops the lines held then and says so (once) through `onError`, never stopping the process. `flushSync` (shutdown)
 * writes what is left before the process ends.
 */
export class AccessWriter implements AccessSink {
  private readonly fd: number;
  private readonly maxWrite: number;
  private readonly retryMs: number;
  private readonly writeFd: WriteFd;
  private readonly onError: (err: Error) => void;
  /** Lines not written yet, oldest first. */
  private lines: string[] = [];
  /** The unwritten end of a chunk the destination took only in part (written before `lines`). */
  private rest: Buffer | undefined;
  private scheduled = false;
  private reported = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly flushTurn = (): void => {
    this.scheduled = false;
    this.retryTimer = undefined;
    if (!this.flushSome()) this.retryTimer = setTimeout(this.flushTurn, this.retryMs);
  };

  constructor(opts: AccessWriterOptions) {
    this.fd = opts.fd;
    this.maxWrite = opts.maxWrite ?? 4096;
    this.retryMs = opts.retryMs ?? 10;
    this.writeFd = opts.writeFd ?? writeSync;
    this.onError = opts.onError ?? (() => {});
  }

  /** Queues one line (ending in `\n`) for the write after this turn. */
  write(line: string): void {
    this.lines.push(line);
    if (!this.scheduled && this.retryTimer === undefined) {
      this.scheduled = true;
      setImmediate(this.flushTurn);
    }
  }

  /** Writes every held line now (shutdown), waiting out a full non-blocking destination. */
  flushSync(): void {
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const wait = new Int32Array(new SharedArrayBuffer(4));
    for (let waited = 0; !this.flushSome() && waited < 5_000; waited += this.retryMs) Atomics.wait(wait, 0, 0, this.retryMs);
  }

  /** Writes held lines until none is left (true) or the destination is full (false). */
  private flushSome(): boolean {
    try {
      if (this.rest !== undefined && !this.writeChunk(this.rest)) return false;
      while (this.lines.length > 0) {
        const lines = this.lines;
        let i = 0;
        let chunk = '';
        let bytes = 0;
        while (i < lines.length) {
          const n = Buffer.byteLength(lines[i]!);
          if (bytes > 0 && bytes + n > this.maxWrite) break;
          chunk += lines[i]!;
          bytes += n;
          i++;
        }
        // The lines are taken before the write: what the destination refuses is kept in `rest`.
        this.lines = i === lines.length ? [] : lines.slice(i);
        if (!this.writeChunk(Buffer.from(chunk))) return false;
      }
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EAGAIN') return false;
      this.lines = [];
      this.rest = undefined;
      if (!this.reported) this.onError(err as Error);
      this.reported = true;
      return true;
    }
  }

  /** Writes one chunk, the rest of it again after a partial write; false when the destination took nothing (kept in `rest`). */
  private writeChunk(buf: Buffer): boolean {
    let left = buf;
    while (left.length > 0) {
      this.rest = left;
      const n = this.writeFd(this.fd, left);
      if (n <= 0) return false;
      left = left.subarray(n);
    }
    this.rest = undefined;
    return true;
  }
}
