/** The live endpoints' limits (env.ts `LIVE_*`; ADR 0025). */
export interface LiveLimits {
  /** Topics one connection may hold at once; a subscription past it is refused. */
  maxSubscriptions: number;
  /** Bytes of messages a connection may leave unread; past it the connection is dropped (close code 4008). */
  maxBufferedBytes: number;
  /** Time a dropped connection gets to receive its close frame before its socket is destroyed (ms). */
  dropGraceMs: number;
  /** WebSocket ping period (ms); a connection that did not answer the previous ping is closed. */
  pingIntervalMs: number;
  /** Largest message a client may send (bytes). */
  maxMessageBytes: number;
}

export const DEFAULT_LIVE_LIMITS: LiveLimits = {
  maxSubscriptions: 100,
  maxBufferedBytes: 1024 * 1024,
  dropGraceMs: 2_000,
  pingIntervalMs: 25_000,
  maxMessageBytes: 64 * 1024,
};

/** The WebSocket close code of a connection dropped for not reading its messages (a private-use code, ADR 0025). */
export const SLOW_CONSUMER_CLOSE_CODE = 4008;
