import { createRequire } from 'node:module';

/**
 * Node's HTTP/1.1 parser (llhttp) through the binding node:http itself uses (`HTTPParser` of `_http_common`), strict
 * mode, for the gateway's fast path (proxy/fast-path.ts) and its upstream connections (node-pool/upstream-connections.ts):
 * ADR 0044. The callback slots are read from the binding, not hard-coded.
 */
export interface HttpParser {
  /** The bytes parsed, or an Error of the binding's realm (not `instanceof` a test runner's: check for a number). */
  execute(data: Buffer): number | Error;
  /** End of input: completes a close-delimited message, or an Error when one is cut. */
  finish(): number | Error | undefined;
  close(): void;
}

export interface HttpParserCallbacks {
  /** More header lines than one headers-complete call carries (they came before it). */
  onHeaders?: () => void;
  /** Returns 1 to tell the parser the message has no body (an answer to HEAD). */
  onHeadersComplete: (
    versionMajor: number,
    versionMinor: number,
    rawHeaders: string[] | undefined,
    method: number,
    url: string | undefined,
    statusCode: number,
    statusMessage: string,
    upgrade: boolean,
    keepAlive: boolean,
  ) => number;
  onBody: (chunk: Buffer) => void;
  onMessageComplete: () => void;
}

type Binding = (new () => HttpParser & { initialize(type: number, resource: object, max: number, lenient: number): void }) &
  Record<string, number>;
const require = createRequire(import.meta.url);
const { HTTPParser, methods } = require('_http_common') as { HTTPParser: Binding; methods: string[] };

/** Method names by the parser's method number. */
export const HTTP_METHODS: readonly string[] = methods;

/** Header values node:http refuses to write (`ERR_INVALID_CHAR`). */
export const INVALID_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

/** A parser of requests or of answers, strict, with node:http's header size limit. */
export function newHttpParser(kind: 'request' | 'response', callbacks: HttpParserCallbacks): HttpParser {
  const parser = new HTTPParser();
  parser.initialize(kind === 'request' ? HTTPParser.REQUEST! : HTTPParser.RESPONSE!, {}, 0, 0);
  const slots = parser as unknown as Record<number, unknown>;
  slots[HTTPParser.kOnHeaders!] = callbacks.onHeaders ?? (() => undefined);
  slots[HTTPParser.kOnHeadersComplete!] = callbacks.onHeadersComplete;
  slots[HTTPParser.kOnBody!] = callbacks.onBody;
  slots[HTTPParser.kOnMessageComplete!] = callbacks.onMessageComplete;
  slots[HTTPParser.kOnExecute!] = () => undefined;
  slots[HTTPParser.kOnTimeout!] = () => undefined;
  return parser;
}
