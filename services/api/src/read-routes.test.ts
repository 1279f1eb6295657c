import { describe, expect, it } from '@jest/globals';
import knex from 'knex';
import { createLogger, createMetricsRegistry } from '@bda/common';
import { apiGetRoutes } from './build-app';
import { DEFAULT_PAGE_LIMITS } from './env';
import { bundleOpenApi, loadSchemaSources } from './openapi';
import { pathTemplates } from './path-templates';
import { routeMatcher } from './plain-routes';

/** `/a/:b/c` → `/a/{b}/c`, the document's spelling. */
const documented = (path: string) => path.replace(/:([A-Za-z_]+)/g, '{$1}');

describe('the GET endpoints served on plain node:http', () => {
  const db = knex({ client: 'pg' });
  const routes = apiGetRoutes({
    db,
    logger: createLogger('t', 'silent'),
    metrics: createMetricsRegistry('t'),
    isShuttingDown: () => false,
  });
  const templates = pathTemplates(bundleOpenApi(loadSchemaSources(), DEFAULT_PAGE_LIMITS)).filter((t) =>
    t.methods.includes('GET'),
  );
  const match = routeMatcher(routes);

  it('are documented operations, each once', () => {
    const paths = routes.map((r) => documented(r.path));
    expect(paths.filter((p) => !templates.some((t) => t.template === p))).toEqual([]);
    expect(paths.filter((p, i) => paths.indexOf(p) !== i)).toEqual([]);
    // Most of the document: the families' reads (the rest stay on express: see build-app.ts).
    expect(routes.length).toBeGreaterThan(100);
  });

  it('answer every documented path with its own operation, never another one’s (literal segments before parameters)', () => {
    for (const t of templates) {
      // Each parameter as a value no literal segment has.
      const path = t.template.replace(/\{[^}]+\}/g, (p) => `v-${p.slice(1, -1)}`);
      const found = match(path);
      if (found) expect({ path, served: documented(found.route.route.path) }).toEqual({ path, served: t.template });
      // The same with the trailing slash express allows.
      if (!path.endsWith('/'))
        expect({ path, slashed: match(`${path}/`)?.route.route.path }).toEqual({ path, slashed: found?.route.route.path });
    }
  });

  it('leaves paths no route takes to express', () => {
    expect(match('/extended/v1/no-such-thing')).toBeUndefined();
    expect(match('/health')).toBeUndefined();
    expect(match('/rosetta/v1/network/list')).toBeUndefined();
    expect(match('/extended/v1/fee_rate')).toBeUndefined();
  });
});
