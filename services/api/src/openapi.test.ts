import { describe, expect, it } from '@jest/globals';
import { expectMessage } from '@bda/test-support';
import type { Express } from 'express';
import { createLogger, createMetricsRegistry } from '@bda/common';
import { createDb } from '@bda/db';
import { buildApp } from './build-app';
import { renderDocsPage } from './docs-page';
import { DEFAULT_PAGE_LIMITS } from './env';
import { bundleOpenApi, componentName, listOperations, loadSchemaSources, refFile, type JsonObject } from './openapi';
import { SchemaValidator } from './schema-validator';

const sources = loadSchemaSources();

/** Route paths an express app answers (GET), walking nested routers. */
function appRoutes(app: Express): string[] {
  const out: string[] = [];
  const walk = (stack: Array<{ route?: { path: string; methods: Record<string, boolean> }; handle?: { stack?: unknown[] } }>) => {
    for (const layer of stack) {
      // GETs, and the POSTs of /extended (`/extended/v1/fee_rate`; Rosetta's POSTs have their own document).
      const { route } = layer;
      if (route && (route.methods['get'] || (route.methods['post'] && route.path.startsWith('/extended')))) out.push(route.path);
      else if (layer.handle?.stack) walk(layer.handle.stack as typeof stack);
    }
  };
  walk((app as unknown as { router: { stack: [] } }).router.stack);
  return out;
}

describe('the OpenAPI sources', () => {
  it('compile in strict mode, every $ref resolving', () => {
    expect(() => new SchemaValidator(sources).compileAll()).not.toThrow();
  });

  it('document every route the app serves, and nothing it does not', () => {
    const db = createDb({ connectionString: 'postgres://unused@127.0.0.1:1/unused' });
    const app = buildApp({
      db,
      logger: createLogger('t', 'silent'),
      metrics: createMetricsRegistry('t'),
      isShuttingDown: () => false,
    });
    const served = appRoutes(app).map((p) => p.replace(/:([a-z_]+)/g, '{$1}'));
    const documented = listOperations(sources.document).map((o) => o.path);
    expect(new Set(served)).toEqual(new Set(documented));
    void db.destroy();
  });

  it('give every operation an id, a summary and a documented error response', () => {
    for (const { path, operation } of listOperations(sources.document)) {
      expectMessage(path, () => expect(operation['operationId']).toBeTruthy());
      expectMessage(path, () => expect(operation['summary']).toBeTruthy());
      if (path.startsWith('/extended')) {
        const responses = operation['responses'] as JsonObject;
        expectMessage(path, () => expect(responses['500']).toBeDefined());
        if (path.includes('{') || path.includes('blocks') || path.includes('mempool'))
          expectMessage(path, () => expect(responses['400']).toBeDefined());
      }
    }
  });
});

describe('bundleOpenApi', () => {
  const bundled = bundleOpenApi(sources, { ...DEFAULT_PAGE_LIMITS, block: { default: 10, max: 40 } });

  it('inlines every component file under components.schemas and leaves no file $ref', () => {
    const text = JSON.stringify(bundled);
    expect(text).not.toMatch(/"\$ref":"(?!#\/components\/)/);
    const schemas = (bundled['components'] as JsonObject)['schemas'] as JsonObject;
    for (const file of sources.components.keys()) expect(schemas[componentName(file)]).toBeDefined();
    for (const ref of text.matchAll(/"\$ref":"#\/components\/(schemas|responses|parameters|headers)\/([A-Za-z0-9]+)"/g)) {
      expectMessage(ref[0], () => expect(((bundled['components'] as JsonObject)[ref[1]!] as JsonObject)[ref[2]!]).toBeDefined());
    }
  });

  it('states the page sizes the process applies', () => {
    const params = (bundled['components'] as JsonObject)['parameters'] as JsonObject;
    expect((params['BlockLimit'] as JsonObject)['schema']).toMatchObject({ default: 10, maximum: 40 });
    expect((params['TxLimit'] as JsonObject)['schema']).toMatchObject({ default: 20, maximum: 50 });
  });

  it('maps file names and refs', () => {
    expect(componentName('nakamoto-block.schema.json')).toBe('NakamotoBlock');
    expect(refFile('./components/schemas/hash32.schema.json')).toBe('hash32.schema.json');
    expect(refFile('./hash32.schema.json')).toBe('hash32.schema.json');
    expect(refFile('https://example.com/x.json')).toBeUndefined();
  });
});

describe('renderDocsPage', () => {
  it('lists every operation, escapes text and loads nothing from elsewhere', () => {
    const html = renderDocsPage(bundleOpenApi(sources));
    for (const { path } of listOperations(sources.document)) expect(html).toContain(`<code>${path}</code>`);
    expect(html).not.toContain('<script');
    expect(html).toContain('&quot;');
  });
});
