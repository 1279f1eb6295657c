/** The reference API's header on the operations it marks deprecated (RFC 7234 warn-code 299, its default text). */
const DEPRECATED_HEADERS: Readonly<Record<string, string>> = { Warning: '299 - "Deprecated: Endpoint is deprecated"' };

/** `DEPRECATED_HEADERS` on an answer (a `ReadReply`, or express's response). */
export function markDeprecated(res: { set(headers: Readonly<Record<string, string>>): unknown }): void {
  res.set(DEPRECATED_HEADERS);
}
