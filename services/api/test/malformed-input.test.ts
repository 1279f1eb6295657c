/**
 * The project rule "every endpoint answers malformed input with a clear 4xx JSON error naming the problem, and the
 * service keeps serving", swept over every operation of the api's own OpenAPI document.
 *
 * The cases are generated from the document (the one the api serves at `/openapi.json`; the first test checks that
 * the bundle generated from here is that document), so a new endpoint or parameter is swept without touching this
 * file:
 * - every path parameter gets malformed values (non-hex, wrong-length hashes, `0x`, negative, huge, float, NUL,
 *   10 000 characters, unicode, `..%2F`, undecodable percent-encoding…), minus the ones its `pattern` accepts;
 * - every query parameter gets values its schema rejects (by type, range, enum or pattern), plus repetition,
 *   emptiness and bracket syntax (`limit[]=1`, `offset[a]=1`);
 * - every operation gets requests with other methods and malformed bodies (an operation that declares a
 *   `requestBody`, `POST /extended/v1/fee_rate`, gets the same bodies on its own method);
 * then the api must still serve valid requests and must not have logged an unhandled error.
 *
 * Every answer must be a 4xx (never 5xx; never 2xx for invalid input), `application/json`, the `{error, message}`
 * body (validated against the schema the document declares for that operation and status, or ErrorResponse), with
 * a message naming the offending parameter. The few well-formed-but-unknown values that may answer 404 are listed in
 * `ACCEPTABLE_404`.
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { testInfra, expectMessage } from '@bda/test-support';
import { DEFAULT_PAGE_LIMITS } from '../src/env';
import { bundleOpenApi, listOperations, loadSchemaSources, type JsonObject } from '../src/openapi';
import { schemaValidator, startApi, type ApiHarness } from './support/api-harness';

// ---------------------------------------------------------------------------------------------------------------
// The document the api serves (the harness starts it with the default page limits), and its operations.
// ---------------------------------------------------------------------------------------------------------------

const DOCUMENT = bundleOpenApi(loadSchemaSources(), DEFAULT_PAGE_LIMITS);

interface ParamSchema {
  type?: string;
  pattern?: string;
  enum?: string[];
  minimum?: number;
  maximum?: number;
  default?: unknown;
  items?: ParamSchema;
}

interface Param {
  name: string;
  in: string;
  required?: boolean;
  schema?: ParamSchema;
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
}

interface Operation {
  /** `GET /extended/v1/tx/{tx_id}` */
  key: string;
  method: string;
  path: string;
  params: Param[];
  declaredStatuses: Set<number>;
  hasBody: boolean;
}

function resolveParam(p: JsonObject): Param {
  const ref = p['$ref'];
  if (typeof ref !== 'string') return p as unknown as Param;
  const name = /^#\/components\/parameters\/(.+)$/.exec(ref)?.[1];
  const resolved = name ? ((DOCUMENT['components'] as JsonObject)['parameters'] as JsonObject)[name] : undefined;
  if (!resolved) throw new Error(`unresolvable parameter $ref ${ref}`);
  return resolved as unknown as Param;
}

const OPERATIONS: Operation[] = listOperations(DOCUMENT).map(({ method, path, operation }) => {
  const pathItem = (DOCUMENT['paths'] as JsonObject)[path] as JsonObject;
  const raw = [...((pathItem['parameters'] ?? []) as JsonObject[]), ...((operation['parameters'] ?? []) as JsonObject[])];
  return {
    key: `${method.toUpperCase()} ${path}`,
    method: method.toUpperCase(),
    path,
    params: raw.map(resolveParam),
    declaredStatuses: new Set(Object.keys(operation['responses'] as JsonObject).map(Number)),
    hasBody: operation['requestBody'] !== undefined,
  };
});

// ---------------------------------------------------------------------------------------------------------------
// Valid values (to fill the parameters a case does not malform) and malformed ones.
// ---------------------------------------------------------------------------------------------------------------

const HEX64 = 'ab'.repeat(32);

/** Valid values for parameters the document gives no example for, by name. */
const VALID_FALLBACK: Record<string, string> = {
  etching: '840000:1',
  address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
  tx_id: `0x${HEX64}`,
  cursor: `0x${HEX64}`,
  until_block: '1',
  block: '840000',
  height_or_hash: '1',
  principal: 'SP000000000000000000002Q6VF78',
};

/** A valid value for a parameter (example, enum, default, minimum, or the fallback), unencoded. */
function validValue(p: Param): string {
  const s = p.schema ?? {};
  const candidates: unknown[] = [
    p.example,
    ...Object.values(p.examples ?? {}).map((e) => e.value),
    s.enum?.[0],
    s.items?.enum?.[0],
    s.default,
    s.type === 'integer' ? s.minimum : undefined,
    VALID_FALLBACK[p.name],
  ];
  const v = candidates.find((c) => typeof c === 'string' || typeof c === 'number');
  if (v === undefined) throw new Error(`no valid value for parameter ${p.name}: add one to VALID_FALLBACK`);
  return String(v);
}

/** A valid value of the parameter other than `than` where its schema allows one (integer ± 1, another enum value). */
function anotherValid(p: Param, than: string): string {
  const s = p.schema ?? {};
  if (s.type === 'integer') {
    const n = Number(than);
    return String(n + 1 <= (s.maximum ?? Infinity) ? n + 1 : n - 1);
  }
  return s.enum?.find((e) => e !== than) ?? s.items?.enum?.find((e) => e !== than) ?? validValue(p);
}

function fillPath(op: Operation, override?: { name: string; raw: string }): string {
  return op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    if (override && override.name === name) return override.raw;
    const p = op.params.find((x) => x.in === 'path' && x.name === name);
    if (!p) throw new Error(`${op.key}: path parameter ${name} is not declared`);
    return encodeURIComponent(validValue(p));
  });
}

interface Malformed {
  /** What is wrong, for the test name. */
  label: string;
  /** As written into the URL (already percent-encoded where needed). */
  raw: string;
}

const TEN_K = 'a'.repeat(10_000);

/** Malformed path segments; the ones a parameter's `pattern` accepts are dropped per parameter. */
const PATH_VALUES: Malformed[] = [
  { label: 'non-hex where hex is expected', raw: 'z'.repeat(64) },
  { label: 'non-hex digits after 0x', raw: `0x${'g'.repeat(64)}` },
  { label: 'a hash one hex digit short', raw: `0x${'a'.repeat(63)}` },
  { label: 'a hash one hex digit long', raw: 'a'.repeat(65) },
  { label: 'a 32-hex-digit (16-byte) hash', raw: `0x${'a'.repeat(32)}` },
  { label: '0x alone', raw: '0x' },
  { label: 'negative', raw: '-1' },
  { label: 'huge (99999999999999999999)', raw: '99999999999999999999' },
  { label: 'a float', raw: '1.5' },
  { label: 'a NUL byte (%00)', raw: '%00' },
  { label: '10 000 characters long', raw: TEN_K },
  { label: 'unicode', raw: encodeURIComponent('ünïcødé💥') },
  { label: 'a path traversal (..%2F)', raw: '..%2F' },
  { label: 'a space', raw: '%20' },
  { label: 'undecodable percent-encoding (%E0%A4%A)', raw: '%E0%A4%A' },
];

/**
 * (parameter, value label) pairs where a 404 is an acceptable answer: the value is well-formed for the parameter
 * (the route documents it) and merely names nothing.
 */
const ACCEPTABLE_404: Array<{ param: string; label: string; why: string }> = [
  {
    param: 'etching',
    label: 'huge (99999999999999999999)',
    why: 'a rune number (digits) is a documented etching form; one beyond int4 is well-formed and matches no rune',
  },
];

const decode = (raw: string): string | undefined => {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
};

/** Whether the document's schema accepts the (decoded) value: the sweep only sends values it rejects. */
function schemaAccepts(s: ParamSchema | undefined, raw: string): boolean {
  const v = decode(raw);
  if (v === undefined || !s) return false;
  if (s.type === 'integer' || s.type === 'number') {
    if (!/^-?(0|[1-9][0-9]*)$/.test(v)) return false;
    const n = Number(v);
    return Number.isSafeInteger(n) && n >= (s.minimum ?? -Infinity) && n <= (s.maximum ?? Infinity);
  }
  if (s.type === 'array') return v.split(',').every((part) => schemaAccepts(s.items, encodeURIComponent(part)));
  if (s.enum) return s.enum.includes(v);
  if (s.pattern) return new RegExp(s.pattern).test(v);
  // A plain string without pattern or enum: the parameter description defines it; every value here is junk for it.
  return false;
}

/** Malformed query values for a parameter, derived from its schema. */
function queryValues(p: Param): Malformed[] {
  const s = p.schema ?? {};
  const out: Malformed[] = [
    { label: 'empty', raw: '' },
    { label: 'a NUL byte (%00)', raw: '%00' },
    { label: 'unicode', raw: encodeURIComponent('①ü💥') },
    { label: '10 000 characters long', raw: TEN_K },
  ];
  if (s.type === 'integer' || s.type === 'number') {
    const min = s.minimum ?? 0;
    const max = s.maximum ?? 2_147_483_647;
    out.push(
      { label: 'not a number', raw: 'abc' },
      { label: 'a float', raw: '1.5' },
      { label: 'negative', raw: '-1' },
      { label: `below the minimum (${min - 1})`, raw: String(min - 1) },
      { label: `above the maximum (${max + 1})`, raw: String(max + 1) },
      { label: 'huge (99999999999999999999)', raw: '99999999999999999999' },
      { label: 'in exponent notation', raw: '1e2' },
      { label: 'hexadecimal', raw: '0x10' },
      { label: 'with a leading space', raw: '%201' },
      { label: 'with a plus sign', raw: '%2B1' },
      { label: 'Infinity', raw: 'Infinity' },
    );
  } else if (s.type === 'array') {
    const first = s.items?.enum?.[0] ?? 'x';
    out.push(
      { label: 'an unknown enum value', raw: 'bogus' },
      { label: 'a listed value in upper case', raw: first.toUpperCase() },
      { label: 'a valid and an unknown value', raw: `${first},bogus` },
      { label: 'a trailing comma', raw: `${first},` },
    );
  } else if (s.enum) {
    out.push(
      { label: 'an unknown enum value', raw: 'bogus' },
      { label: '"maybe"', raw: 'maybe' },
      { label: 'an enum value in upper case', raw: s.enum[0]!.toUpperCase() },
      { label: 'an enum value with a trailing space', raw: `${s.enum[0]}%20` },
    );
  } else {
    out.push(
      { label: 'junk', raw: 'not-valid!' },
      { label: '0x alone', raw: '0x' },
      { label: 'negative', raw: '-1' },
      { label: 'non-hex where hex may be expected', raw: 'z'.repeat(64) },
      { label: 'a hash one hex digit short', raw: `0x${'a'.repeat(63)}` },
      { label: 'a path traversal (..%2F)', raw: '..%2F' },
    );
  }
  const seen = new Set<string>();
  return out.filter((m) => !schemaAccepts(s, m.raw) && !seen.has(m.raw) && seen.add(m.raw));
}

// ---------------------------------------------------------------------------------------------------------------
// Cases.
// ---------------------------------------------------------------------------------------------------------------

interface Case {
  name: string;
  op: Operation;
  method: string;
  /** Path and query as sent (raw). */
  url: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Statuses that pass. */
  statuses: number[];
  /** The message must match one of these. */
  names: RegExp[];
  /** When set, answering exactly as this request (the parameter ignored) also passes. */
  sameAs?: string;
  /** GET cases on the operation itself: the status must be declared in the document for the operation. */
  declared: boolean;
}

const word = (name: string) => new RegExp(`(^|[^A-Za-z0-9_])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^A-Za-z0-9_]|$)`);

function pathCases(op: Operation): Case[] {
  const out: Case[] = [];
  for (const p of op.params.filter((x) => x.in === 'path')) {
    for (const m of PATH_VALUES) {
      if (schemaAccepts(p.schema, m.raw)) continue;
      const ok404 = ACCEPTABLE_404.some((a) => a.param === p.name && a.label === m.label);
      const names = [word(p.name)];
      out.push({
        name: `answers ${ok404 ? '400 or 404' : '400'} naming ${p.name} when path parameter ${p.name} is ${m.label} on ${op.key}`,
        op,
        method: op.method,
        url: fillPath(op, { name: p.name, raw: m.raw }),
        statuses: ok404 ? [400, 404] : [400],
        names,
        declared: true,
      });
    }
  }
  return out;
}

function queryCases(op: Operation): Case[] {
  const out: Case[] = [];
  const base = fillPath(op);
  for (const p of op.params.filter((x) => x.in === 'query')) {
    const q = (raw: string) => `${base}?${raw}`;
    for (const m of queryValues(p)) {
      out.push({
        name: `answers 400 naming ${p.name} when query parameter ${p.name} is ${m.label} on ${op.key}`,
        op,
        method: op.method,
        url: q(`${p.name}=${m.raw}`),
        statuses: [400],
        names: [word(p.name)],
        declared: true,
      });
    }
    const valid = encodeURIComponent(validValue(p));
    // A second valid value, different from the first where the schema has one (`limit=20&limit=21`).
    const other = encodeURIComponent(anotherValid(p, validValue(p)));
    if (p.schema?.type === 'array') {
      // Repeating is documented (explode: true); one bad repetition must still be named.
      out.push({
        name: `answers 400 naming ${p.name} when a repetition of ${p.name} is an unknown value on ${op.key}`,
        op,
        method: op.method,
        url: q(`${p.name}=${valid}&${p.name}=bogus`),
        statuses: [400],
        names: [word(p.name)],
        declared: true,
      });
    } else {
      out.push({
        name: `answers 400 naming ${p.name} when query parameter ${p.name} is repeated (${p.name}=${valid}&${p.name}=${other}) on ${op.key}`,
        op,
        method: op.method,
        url: q(`${p.name}=${valid}&${p.name}=${other}`),
        statuses: [400],
        names: [word(p.name)],
        declared: true,
      });
    }
    // A valid value other than the default, so an answer equal to the one without the parameter shows it was ignored
    // (not applied): `limit[]=21` must not be a page of 21.
    const nonDefault = anotherValid(p, String(p.schema?.default ?? validValue(p)));
    for (const [label, raw] of [
      ['array syntax', `${p.name}[]=${encodeURIComponent(nonDefault)}`],
      ['object syntax', `${p.name}[a]=${encodeURIComponent(nonDefault)}`],
    ] as const) {
      // The api's query parser is `simple` (node:querystring): `limit[]` is a parameter named "limit[]", which,
      // like any unknown parameter, is ignored. Passing: a 400 naming the parameter, or the answer without it.
      out.push({
        name: `answers 400 naming ${p.name} or ignores it when given in ${label} (${raw}) on ${op.key}`,
        op,
        method: op.method,
        url: q(raw),
        statuses: [400],
        names: [word(p.name)],
        sameAs: base,
        declared: true,
      });
    }
  }
  return out;
}

const TWO_MIB = Buffer.alloc(2 * 1024 * 1024, 0x61);
/** Bodies a JSON endpoint must refuse; sent with methods the operation does not have (and its own, if it takes one). */
const BODIES: Array<{ label: string; body: string | Buffer; contentType: string }> = [
  { label: 'a body that is not JSON', body: '{not json', contentType: 'application/json' },
  { label: 'a JSON array', body: '[]', contentType: 'application/json' },
  { label: 'a JSON string', body: '"network"', contentType: 'application/json' },
  { label: 'JSON null', body: 'null', contentType: 'application/json' },
  { label: 'an object missing every required field', body: '{}', contentType: 'application/json' },
  {
    label: 'fields of the wrong type',
    body: '{"network_identifier":1,"block_identifier":"x","limit":"x"}',
    contentType: 'application/json',
  },
  {
    label: 'a truncated JSON body',
    body: '{"network_identifier":{"blockchain":"stacks","network":"main',
    contentType: 'application/json',
  },
  {
    label: 'a 2 MiB body (beyond the 1 MiB API_BODY_LIMIT_BYTES the gateway forwards; the api parses no bodies)',
    body: TWO_MIB,
    contentType: 'application/json',
  },
  { label: 'JSON sent as text/plain', body: '{}', contentType: 'text/plain' },
  { label: 'a form body', body: 'a=1&b=2', contentType: 'application/x-www-form-urlencoded' },
];

function methodCases(op: Operation): Case[] {
  const out: Case[] = [];
  const url = fillPath(op);
  for (const b of BODIES) {
    // An operation that is a POST (`/extended/v1/fee_rate`) gets the bodies on its own method below instead.
    if (op.method !== 'POST')
      out.push({
        name: `answers 405 naming the method when POST with ${b.label} is sent to ${op.key}`,
        op,
        method: 'POST',
        url,
        headers: { 'content-type': b.contentType },
        body: b.body,
        statuses: [405],
        names: [/\bPOST\b/, /method/i],
        declared: false,
      });
    if (op.hasBody) {
      out.push({
        name: `answers 4xx naming the problem when ${b.label} is sent to ${op.key}`,
        op,
        method: op.method,
        url,
        headers: { 'content-type': b.contentType },
        body: b.body,
        statuses: [400, 413, 415, 422],
        names: [/body|json|content-type|field|required/i],
        declared: true,
      });
    }
  }
  for (const method of ['PUT', 'DELETE', 'PATCH']) {
    out.push({
      name: `answers 405 naming the method when ${method} is sent to ${op.key}`,
      op,
      method,
      url,
      headers: { 'content-type': 'application/json' },
      body: '{}',
      statuses: [405],
      names: [new RegExp(`\\b${method}\\b`), /method/i],
      declared: false,
    });
  }
  return out;
}

const CASES_BY_OP = OPERATIONS.map((op) => ({ op, cases: [...pathCases(op), ...queryCases(op), ...methodCases(op)] }));
const CASE_COUNT = CASES_BY_OP.reduce((n, o) => n + o.cases.length, 0);

// ---------------------------------------------------------------------------------------------------------------
// The api, and raw HTTP (node:http: no URL normalisation, any method, body and header).
// ---------------------------------------------------------------------------------------------------------------

let api: ApiHarness;
const logLines: Array<{ level: number; msg?: string; err?: unknown; path?: string }> = [];
const sweptOps = new Set<string>();
let sweptCases = 0;

beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split('\n')) if (l) logLines.push(JSON.parse(l) as (typeof logLines)[number]);
      cb();
    },
  });
  api = await startApi(testInfra().databaseUrl, { logger: pino({ level: 'warn' }, sink), listen: true });
});

afterAll(async () => {
  await api?.close();
});

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

/** Long enough that only a hang trips it; reported as "no answer", never asserted on as a duration. */
const HANG_MS = 60_000;

function send(method: string, url: string, headers: Record<string, string> = {}, body?: string | Buffer): Promise<Answer> {
  const { hostname, port } = new URL(api.baseUrl);
  return new Promise((resolve, reject) => {
    // node:http frames no body for DELETE (nor GET) unless told its length: say it, or the body reads as a next request.
    const framed =
      body === undefined || 'content-length' in headers
        ? headers
        : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
    const req = httpRequest({ host: hostname, port: Number(port), method, path: url, headers: framed, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: String(res.headers['content-type'] ?? ''),
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      res.on('error', reject);
    });
    req.setTimeout(HANG_MS, () => req.destroy(new Error(`no answer to ${method} ${url.slice(0, 200)} within ${HANG_MS} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Writes `text` on a fresh TCP connection (closing the write side when `halfClose`), reads until the server closes,
 * and parses the first HTTP response: for requests node:http's client will not send (a truncated body).
 */
function sendRaw(text: string, halfClose: boolean): Promise<Answer> {
  const { hostname, port } = new URL(api.baseUrl);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => {
      socket.write(text);
      if (halfClose) socket.end();
    });
    socket.setTimeout(HANG_MS, () => socket.destroy(new Error(`no answer within ${HANG_MS} ms`)));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const all = Buffer.concat(chunks).toString('utf8');
      const head = all.split('\r\n\r\n', 1)[0]!;
      const status = Number(/^HTTP\/1\.[01] ([0-9]{3})/.exec(head)?.[1] ?? 0);
      const header = (name: string) => new RegExp(`\r\n${name}: *([^\r]*)`, 'i').exec(head)?.[1];
      const start = head.length + 4;
      const length = Number(header('content-length') ?? 0);
      resolve({ status, contentType: header('content-type') ?? '', text: all.slice(start, start + length) });
    });
  });
}

const short = (s: string) => (s.length > 300 ? `${s.slice(0, 300)}…(${s.length} chars)` : s);

async function check(c: Case): Promise<void> {
  sweptOps.add(c.op.key);
  sweptCases++;
  const res = await send(c.method, c.url, c.headers, c.body);
  const what = `${c.method} ${short(c.url)} → ${res.status} ${res.contentType} ${short(res.text)}`;
  // Ignored: the answer is the one without the parameter (a 400 too when the request fails for another reason).
  const baseline = c.sameAs === undefined ? undefined : await send(c.method, c.sameAs, c.headers, c.body);
  if (baseline && (res.status !== 400 || (baseline.status === 400 && baseline.text === res.text))) {
    expectMessage(`${what}: neither 400 nor the answer without the parameter`, () =>
      expect({ status: res.status, text: res.text }).toEqual({
        status: baseline.status,
        text: baseline.text,
      }),
    );
    expectMessage(what, () => expect(res.status).toBeLessThan(500));
    return;
  }
  expectMessage(what, () => expect(c.statuses).toContain(res.status));
  expectMessage(what, () => expect(res.contentType).toMatch(/^application\/json\b/));
  const body = JSON.parse(res.text) as { error?: unknown; message?: unknown };
  if (c.declared && c.op.declaredStatuses.has(res.status)) {
    schemaValidator.validateResponse(c.op.path, c.op.method.toLowerCase(), res.status, body);
  } else {
    schemaValidator.validateComponent('error-response.schema.json', body);
  }
  if (c.declared) {
    expectMessage(`${what}: status not documented for ${c.op.key}`, () =>
      expect([...c.op.declaredStatuses]).toContain(res.status),
    );
  }
  expectMessage(what, () => expect(typeof body.error === 'string' && body.error.length > 0).toBe(true));
  const message = String(body.message);
  expectMessage(`${what}: message does not name the problem (${c.names.join(' or ')})`, () =>
    expect(c.names.some((re) => re.test(message))).toBe(true),
  );
}

// ---------------------------------------------------------------------------------------------------------------
// The sweep.
// ---------------------------------------------------------------------------------------------------------------

describe('the document the sweep is generated from', () => {
  it('is the document the api serves at /openapi.json', async () => {
    const res = await send('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual(DOCUMENT);
  });

  it('has operations, and every one of them has cases', () => {
    expect(OPERATIONS.length).toBeGreaterThan(0);
    for (const { op, cases } of CASES_BY_OP) expectMessage(op.key, () => expect(cases.length).toBeGreaterThan(0));
    // Every parameter of every operation is malformed by at least one case.
    for (const { op, cases } of CASES_BY_OP) {
      for (const p of op.params.filter((x) => x.in === 'path' || x.in === 'query')) {
        expectMessage(`${op.key}: no case for ${p.in} parameter ${p.name}`, () =>
          expect(cases.some((c) => c.name.includes(` ${p.name} `))).toBe(true),
        );
      }
    }
  });
});

// Plain loops, not it.each: vitest cuts `$name` in titles to 40 characters, and each case must be identifiable.
for (const { op, cases } of CASES_BY_OP) {
  describe(`malformed input to ${op.key}`, () => {
    for (const c of cases) {
      it(c.name, async () => {
        await check(c);
      });
    }
  });
}

/**
 * Paths no family serves, with bodies a JSON parser would refuse: they meet the not-found handler, which must still
 * answer JSON (Rosetta, whose errors are its own, has its own sweep).
 */
describe('routes outside the document', () => {
  for (const { method, url, body } of [
    { method: 'POST', url: '/extended/v1/not-a-route', body: '{not json' },
    { method: 'POST', url: '/v9/block', body: '[]' },
    { method: 'GET', url: '/extended/v2/not-a-route/', body: undefined },
    { method: 'GET', url: `/extended/v1/tx/0x${HEX64}/..%2F..%2Fextended`, body: undefined },
  ]) {
    it(`answers 404 JSON naming the route for ${method} ${url}`, async () => {
      const res = await send(method, url, { 'content-type': 'application/json' }, body);
      const what = `${method} ${url} → ${res.status} ${res.contentType} ${short(res.text)}`;
      expectMessage(what, () => expect(res.status).toBe(404));
      expectMessage(what, () => expect(res.contentType).toMatch(/^application\/json\b/));
      const parsed = JSON.parse(res.text) as { message: string };
      schemaValidator.validateComponent('error-response.schema.json', parsed);
      expectMessage(what, () => expect(parsed.message).toContain(method));
    });
  }
});

/**
 * Requests malformed below express: Node's HTTP parser answers them itself unless the server has a `clientError`
 * handler. One representative per kind (every operation shares the server), from the document's first operations
 * with a path parameter and with an integer query parameter.
 */
const OP_WITH_PATH_PARAM = OPERATIONS.find((op) => op.params.some((p) => p.in === 'path'))!;
const OP_WITH_INT_QUERY = OPERATIONS.find((op) => op.params.some((p) => p.in === 'query' && p.schema?.type === 'integer'))!;
const TWENTY_K = 'a'.repeat(20_000);

describe('HTTP-level malformed requests', () => {
  for (const op of OPERATIONS) {
    it(`answers the first response of a POST with a truncated body (Content-Length 1000, 6 bytes, then EOF) to ${op.key} with 4xx JSON`, async () => {
      const res = await sendRaw(
        `POST ${fillPath(op)} HTTP/1.1\r\nHost: api\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":1`,
        true,
      );
      const what = `truncated POST ${op.key} → ${res.status} ${res.contentType} ${short(res.text)}`;
      expectMessage(what, () => expect([400, 404, 405]).toContain(res.status));
      expectMessage(what, () => expect(res.contentType).toMatch(/^application\/json\b/));
      schemaValidator.validateComponent('error-response.schema.json', JSON.parse(res.text));
    });
  }

  for (const { name, url } of [
    {
      name: `a path parameter 20 000 characters long (beyond Node's 16 KiB header limit) on ${OP_WITH_PATH_PARAM.key}`,
      url: fillPath(OP_WITH_PATH_PARAM, {
        name: OP_WITH_PATH_PARAM.params.find((p) => p.in === 'path')!.name,
        raw: TWENTY_K,
      }),
    },
    {
      name: `a query value 20 000 characters long (beyond Node's 16 KiB header limit) on ${OP_WITH_INT_QUERY.key}`,
      url: `${fillPath(OP_WITH_INT_QUERY)}?${OP_WITH_INT_QUERY.params.find((p) => p.in === 'query' && p.schema?.type === 'integer')!.name}=${TWENTY_K}`,
    },
  ]) {
    it(`answers 4xx JSON naming the problem for ${name}`, async () => {
      const res = await sendRaw(`GET ${url} HTTP/1.1\r\nHost: api\r\nConnection: close\r\n\r\n`, false);
      const what = `GET ${short(url)} → ${res.status} content-type ${JSON.stringify(res.contentType)} body ${JSON.stringify(short(res.text))}`;
      expectMessage(what, () => expect([400, 414, 431]).toContain(res.status));
      expectMessage(what, () => expect(res.contentType).toMatch(/^application\/json\b/));
      const body = JSON.parse(res.text) as { message: string };
      schemaValidator.validateComponent('error-response.schema.json', body);
      expectMessage(what, () => expect(body.message).toMatch(/too (long|large)|header|url|uri|tx_id|limit|offset/i));
    });
  }
});

describe('after the sweep', () => {
  it(`ran all ${CASE_COUNT} generated cases, covering every one of the document's operations`, async () => {
    const served = JSON.parse((await send('GET', '/openapi.json')).text) as JsonObject;
    const n = listOperations(served).length;
    expect(n).toBeGreaterThan(0);
    expect(sweptCases).toBe(CASE_COUNT);
    expect(sweptOps.size).toBeGreaterThanOrEqual(n);
    expect([...sweptOps].sort()).toEqual(
      listOperations(served)
        .map((o) => `${o.method.toUpperCase()} ${o.path}`)
        .sort(),
    );
  });

  it('still answers GET /extended with 200', async () => {
    const res = await api.get('/extended');
    expect(res.status).toBe(200);
    expect(res.body).toHaveProperty('server_version');
  });

  for (const op of OPERATIONS.filter((o) => o.method === 'GET')) {
    it(`still serves a valid request to ${op.key} without a 5xx`, async () => {
      const res = await send(op.method, fillPath(op));
      expectMessage(`${op.key} → ${res.status} ${short(res.text)}`, () => expect(res.status).toBeLessThan(500));
      expectMessage(`${op.key} → undocumented ${res.status}`, () => expect(op.declaredStatuses.has(res.status)).toBe(true));
    });
  }

  it('logged no unhandled error and no database trouble during the sweep', () => {
    const trouble = logLines.filter((l) => l.level >= 40);
    expect(trouble.map((l) => `${l.msg} ${l.path ?? ''} ${JSON.stringify(l.err ?? '').slice(0, 300)}`)).toEqual([]);
  });
});
