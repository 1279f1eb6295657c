import { createServer, type Server } from 'node:http';
import knex, { type Knex } from 'knex';
import type pg from 'pg';
import { createLogger, createMetricsRegistry } from '@bda/common';
import { buildRequestListener } from '@bda/api';

/**
 * The plans of the statements an api request runs, as PostgreSQL executed them: an in-process api (the api's own
 * request listener) on one connection that loads `auto_explain` (every statement, `ANALYZE` and `BUFFERS`, JSON
 * format) and sends the plans back as notices, with the api's generic plans (`plan_cache_mode`, as its `main.ts`).
 * Nothing of the measured api process changes.
 */
export interface ExplainedStatement {
  /** Milliseconds PostgreSQL took. */
  ms: number;
  /** Shared buffers hit + read over the whole plan (its top node's totals). */
  buffers: number;
  /** The plan as an indented tree: node, index or relation, rows × loops, buffers. */
  tree: string;
}

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  Alias?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Actual Total Time'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

function render(node: PlanNode, depth: number, out: string[]): void {
  const on = node['Index Name'] ? ` using ${node['Index Name']}` : node['Relation Name'] ? ` on ${node['Relation Name']}` : '';
  const buffers = (node['Shared Hit Blocks'] ?? 0) + (node['Shared Read Blocks'] ?? 0);
  const cond = node['Index Cond'] ? `  ${node['Index Cond']}` : '';
  out.push(
    `${'  '.repeat(depth)}${node['Node Type']}${on}  rows=${node['Actual Rows'] ?? '?'}×${node['Actual Loops'] ?? '?'}  buffers=${buffers}${cond}`,
  );
  for (const child of node.Plans ?? []) render(child, depth + 1, out);
}

export class PlanExplainer {
  private constructor(
    private readonly notices: string[],
    private readonly baseUrl: Promise<string>,
    private readonly server: Server,
    private readonly db: Knex,
  ) {}

  static start(databaseUrl: string): PlanExplainer {
    const settings = [
      'plan_cache_mode=force_generic_plan',
      'session_preload_libraries=auto_explain',
      'auto_explain.log_min_duration=0',
      'auto_explain.log_analyze=on',
      'auto_explain.log_buffers=on',
      'auto_explain.log_timing=on',
      'auto_explain.log_format=json',
      'auto_explain.log_level=notice',
      'client_min_messages=notice',
    ];
    const notices: string[] = [];
    const db = knex({
      client: 'pg',
      connection: { connectionString: databaseUrl, options: settings.map((s) => `-c ${s}`).join(' ') },
      pool: {
        min: 0,
        max: 1,
        afterCreate: (conn: pg.Client, done: (err: Error | null, conn: pg.Client) => void) => {
          conn.on('notice', (msg) => notices.push(msg.message ?? ''));
          done(null, conn);
        },
      },
    });
    const listener = buildRequestListener({
      db,
      logger: createLogger('bench-explain', 'silent'),
      metrics: createMetricsRegistry('api'),
      isShuttingDown: () => false,
    });
    const server = createServer(listener);
    const baseUrl = new Promise<string>((resolve) =>
      server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`)),
    );
    return new PlanExplainer(notices, baseUrl, server, db);
  }

  /** The statements of one request of `path` (asked once before, so each is prepared and planned already). */
  async explain(path: string): Promise<{ status: number; statements: ExplainedStatement[] }> {
    const base = await this.baseUrl;
    await (await fetch(base + path)).arrayBuffer();
    this.notices.length = 0;
    const res = await fetch(base + path);
    await res.arrayBuffer();
    const statements: ExplainedStatement[] = [];
    for (const notice of this.notices) {
      const at = notice.indexOf('{');
      if (at < 0) continue;
      const doc = JSON.parse(notice.slice(at)) as { Plan: PlanNode; 'Execution Time'?: number };
      const lines: string[] = [];
      render(doc.Plan, 2, lines);
      statements.push({
        ms: doc.Plan['Actual Total Time'] ?? 0,
        buffers: (doc.Plan['Shared Hit Blocks'] ?? 0) + (doc.Plan['Shared Read Blocks'] ?? 0),
        tree: lines.join('\n'),
      });
    }
    return { status: res.status, statements };
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await this.db.destroy();
  }
}
