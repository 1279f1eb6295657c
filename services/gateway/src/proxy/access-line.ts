import { infoLinePrefix } from '@bda/common';

/** One request's access line: what log-request.ts knows once the response is over. */
export interface AccessLine {
  reqId: string;
  method: string | undefined;
  path: string;
  status: number;
  ms: number;
  ip: string;
  keyId: string | undefined;
  target: string;
  upstream: string | undefined;
  tries: number | undefined;
  limited: boolean | undefined;
  aborted: boolean | undefined;
  /** Answered from a kept answer (ADR 0048). */
  kept: boolean | undefined;
}

/**
 * The access line as pino writes it for `logger.info(fields, 'request')` with `name: 'gateway'` (the same keys, order
 * and JSON; undefined fields left out), built by hand: pino's generic serializer was the larger part of the access
 * log's cost per request (issue 26). Every string goes through JSON.stringify, so nothing a client wrote can break
 * the line.
 */
export function accessLine(l: AccessLine, now: number = Date.now()): string {
  let s = `${infoLinePrefix('gateway', now)},"reqId":${JSON.stringify(l.reqId)}`;
  if (l.method !== undefined) s += `,"method":${JSON.stringify(l.method)}`;
  s += `,"path":${JSON.stringify(l.path)},"status":${l.status},"ms":${l.ms},"ip":${JSON.stringify(l.ip)}`;
  if (l.keyId !== undefined) s += `,"keyId":${JSON.stringify(l.keyId)}`;
  s += `,"target":${JSON.stringify(l.target)}`;
  if (l.upstream !== undefined) s += `,"upstream":${JSON.stringify(l.upstream)}`;
  if (l.tries !== undefined) s += `,"tries":${l.tries}`;
  if (l.limited !== undefined) s += `,"limited":${l.limited}`;
  if (l.aborted !== undefined) s += `,"aborted":${l.aborted}`;
  if (l.kept !== undefined) s += `,"kept":${l.kept}`;
  return `${s},"msg":"request"}\n`;
}
