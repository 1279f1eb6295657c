import type { Duplex } from 'node:stream';

/** One proxied WebSocket: the client's connection, the api replica's, and who opened it. */
export interface WebSocketConnection {
  /** The rate-limit subject (`key:<id>` or the client address group): connections are counted per subject. */
  subjectId: string;
  /** The key it was opened with (kept in memory only, to verify it again; never logged); undefined when anonymous. */
  presentedKey: string | undefined;
  client: Duplex;
  upstream: Duplex;
}

/** The open WebSocket connections of this gateway process, by subject and by key. */
export class WebSocketConnections {
  private readonly open = new Set<WebSocketConnection>();
  private readonly perSubject = new Map<string, number>();

  get size(): number {
    return this.open.size;
  }

  countOf(subjectId: string): number {
    return this.perSubject.get(subjectId) ?? 0;
  }

  add(c: WebSocketConnection): void {
    this.open.add(c);
    this.perSubject.set(c.subjectId, this.countOf(c.subjectId) + 1);
    const forget = () => this.remove(c);
    c.client.once('close', forget);
    c.upstream.once('close', forget);
  }

  private remove(c: WebSocketConnection): void {
    if (!this.open.delete(c)) return;
    const n = this.countOf(c.subjectId) - 1;
    if (n > 0) this.perSubject.set(c.subjectId, n);
    else this.perSubject.delete(c.subjectId);
  }

  /** The distinct keys open connections were opened with. */
  presentedKeys(): string[] {
    const keys = new Set<string>();
    for (const c of this.open) if (c.presentedKey !== undefined) keys.add(c.presentedKey);
    return [...keys];
  }

  /** Closes the connections opened with `key`; returns how many. */
  closeKey(key: string): number {
    let n = 0;
    for (const c of [...this.open]) {
      if (c.presentedKey !== key) continue;
      c.client.destroy();
      c.upstream.destroy();
      this.remove(c);
      n++;
    }
    return n;
  }

  closeAll(): void {
    for (const c of [...this.open]) {
      c.client.destroy();
      c.upstream.destroy();
      this.remove(c);
    }
  }
}
