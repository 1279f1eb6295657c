/**
 * A real api on a fresh, migrated database, asked through supertest (`request(server)`: the api's own node:http
 * server, no port of the test's). Every response `get` receives is validated against the schema the OpenAPI
 * document declares for its route and status (errors against ErrorResponse), so a test that passes has also
 * checked the response shapes. Tests that need a real socket (malformed request lines, raw bytes) ask for
 * `listen: true` and use `baseUrl`.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Knex } from 'knex';
import request from 'supertest';
import { closeServer, createHttpServer, createLogger, createMetricsRegistry, type Logger } from '@bda/common';
import { createDb, migrateLatest } from '@bda/db';
import { createTestDatabase } from '@bda/test-support';
import { buildRequestListener } from '../../src/build-app';
import type { PageLimits } from '../../src/env';
import { createRunesDb } from '../../src/runes';
import { loadSchemaSources, type JsonObject } from '../../src/openapi';
import { SchemaValidator } from '../../src/schema-validator';
import { replayedDatabase } from './replayed-database';

const sources = loadSchemaSources();
export const schemaValidator = new SchemaValidator(sources);
schemaValidator.compileAll();

const templates = Object.keys(sources.document['paths'] as JsonObject)
  .map((template) => ({
    template,
    params: (template.match(/\{/g) ?? []).length,
    re: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
  }))
  // Literal paths win over templated ones (`/tx/mempool` before `/tx/{tx_id}`), as the router orders them.
  .sort((a, b) => a.params - b.params);

/** The document's path template a concrete path falls under, if any. */
function pathTemplate(path: string): string | undefined {
  return templates.find((t) => t.re.test(path))?.template;
}

interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  /** Parsed JSON body (undefined for an empty or non-JSON body). */
  body: T;
  text: string;
}

export interface ApiHarness {
  db: Knex;
  databaseUrl: string;
  /** The api's server (not listening unless `listen: true`): `request(api.server)` asks it through supertest. */
  server: Server;
  /** `http://127.0.0.1:<port>` of the listening server; only with `listen: true` (throws otherwise). */
  readonly baseUrl: string;
  /** GET (or `init.method`) a path; validates the response against the document. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are schema-validated JSON that assertions read loosely
  get<T = any>(path: string, init?: RequestInit): Promise<ApiResponse<T>>;
  /** Number of responses validated against a schema so far. */
  validatedCount(): number;
  setShuttingDown(value: boolean): void;
  close(): Promise<void>;
}

/**
 * A real api on a fresh, migrated database, served as the api process serves (`buildRequestListener`: the plain
 * `/runes/v1` routes, then express). With `fixture`, the database is a fresh copy of one into which that recorded
 * fixture (test/fixtures/stacks-node-events/) was replayed through the real observer and indexer
 * (`replayedDatabase`), so the api reads what the system indexed.
 */
export async function startApi(
  serverUrl: string,
  opts: { pageLimits?: PageLimits; logger?: Logger; listen?: boolean; fixture?: string } = {},
): Promise<ApiHarness> {
  const url = opts.fixture ? await replayedDatabase(serverUrl, opts.fixture) : await createTestDatabase(serverUrl, 'api');
  const db = createDb({ connectionString: url, maxConnections: 5, applicationName: 'api-test' });
  if (!opts.fixture) await migrateLatest(db);
  const runesDb = createRunesDb({ connectionString: url, max: 5, applicationName: 'api-test-runes' });
  let shuttingDown = false;
  const listener = buildRequestListener({
    db,
    runesDb,
    logger: opts.logger ?? createLogger('api-test', 'silent'),
    metrics: createMetricsRegistry('api'),
    isShuttingDown: () => shuttingDown,
    pageLimits: opts.pageLimits,
  });
  const server: Server = createHttpServer(listener);
  let baseUrl: string | undefined;
  if (opts.listen) {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  }
  let validated = 0;

  async function get<T>(path: string, init?: RequestInit): Promise<ApiResponse<T>> {
    const method = (init?.method ?? 'GET').toLowerCase();
    const req = new request.Test(server, method, path);
    new Headers(init?.headers).forEach((value, name) => req.set(name, value));
    if (init?.body != null) req.send(init.body as string);
    // The body as the text it was sent as, whatever its content-type (the checks below parse it).
    const res = await req.buffer(true).parse((response, done) => {
      const stream = response as unknown as IncomingMessage;
      let raw = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => (raw += chunk));
      stream.on('end', () => done(null, raw));
      stream.on('error', (err) => done(err, raw));
    });
    const text = typeof res.body === 'string' ? res.body : '';
    const headers = new Headers();
    for (const [name, value] of Object.entries(res.headers as Record<string, string | string[] | undefined>)) {
      for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, v);
    }
    const isJson = (headers.get('content-type') ?? '').startsWith('application/json');
    const body = (isJson && text ? JSON.parse(text) : undefined) as T;
    const pathname = new URL(path, 'http://api.test').pathname;
    const template = pathTemplate(pathname);
    if (res.status === 304) {
      if (text !== '') throw new Error(`304 from ${path} carried a body`);
    } else if (template && method === 'get') {
      if (res.status !== 200 || template.startsWith('/extended')) {
        // Every /extended answer and every error must be JSON.
        if (!isJson) throw new Error(`${path} answered ${res.status} with content-type ${headers.get('content-type')}`);
      }
      schemaValidator.validateResponse(template, method, res.status, body);
      validated++;
    } else if (res.status >= 400) {
      if (!isJson) throw new Error(`${path} answered ${res.status} without a JSON body`);
      schemaValidator.validateComponent('error-response.schema.json', body);
      validated++;
    }
    return { status: res.status, headers, body, text };
  }

  return {
    db,
    databaseUrl: url,
    server,
    get baseUrl(): string {
      if (!baseUrl) throw new Error('startApi(…, { listen: true }) for a test that needs the api on a real port');
      return baseUrl;
    },
    get,
    validatedCount: () => validated,
    setShuttingDown: (v) => {
      shuttingDown = v;
    },
    close: async () => {
      if (server.listening) await closeServer(server);
      await runesDb.close();
      await db.destroy();
    },
  };
}
