/**
 * Identical reads that arrive in the same turn of the event loop share one answer: the first one runs, the others
 * wait for its promise.
 *
 * Why it is correct: every request read in one poll phase of the event loop was already received (in the kernel's
 * socket buffers) when the phase began, and the shared answer's statements are sent during or after that phase. So
 * the answer reflects a database state from after each of those requests arrived — what a statement of its own would
 * have given. Requests of later turns never join: the shared promises are dropped in the check phase right after
 * (`setImmediate`), even while their statements are still running.
 *
 * Why: a chain-wide page (the first page of blocks, of transactions, of the mempool) is the same URL for every
 * client, and under load several of them arrive per turn. Each then cost its own statement, its own PostgreSQL
 * output of the same rows and its own rendering of the same JSON; the HTTP work stays per request (ADR 0030).
 *
 * `key` must hold everything the answer depends on besides the database: the request target (path and query) and
 * the request headers a handler reads (`If-None-Match`, `Cache-Control`: the 304 decision).
 */
export class SameTurnAnswers<T> {
  private current = new Map<string, Promise<T>>();
  private scheduled = false;
  private readonly clear = (): void => {
    this.current = new Map();
    this.scheduled = false;
  };

  /**
   * @param onShared called for each request answered by another's promise (a metric).
   */
  constructor(private readonly onShared: () => void = () => {}) {}

  /** The answer of an identical request of this turn, or `run()`'s. */
  answer(key: string, run: () => Promise<T>): Promise<T> {
    const found = this.current.get(key);
    if (found) {
      this.onShared();
      return found;
    }
    const p = run();
    this.current.set(key, p);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.clear);
    }
    return p;
  }
}
