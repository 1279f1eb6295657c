/** Messages arriving on a callback, awaited by count (no timing: the test's own timeout is the only bound). */
export class Inbox<T> {
  readonly items: T[] = [];
  private waiters: Array<{ n: number; resolve: () => void }> = [];
  push = (item: T): void => {
    this.items.push(item);
    this.waiters = this.waiters.filter((w) => (this.items.length >= w.n ? (w.resolve(), false) : true));
  };
  async count(n: number): Promise<T[]> {
    if (this.items.length < n) await new Promise<void>((resolve) => this.waiters.push({ n, resolve }));
    return this.items.slice(0, n);
  }
}
