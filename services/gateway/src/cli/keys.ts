/**
 * API key administration:
 *
 *   npm run keys -- create --owner <account> [--limit <per minute>] [--burst <per second>] [--json]
 *   npm run keys -- list [--owner <account>] [--all] [--json]
 *   npm run keys -- revoke <prefix|id> [--json]
 *
 * Uses DATABASE_URL and applies the gateway's migrations first. `create` prints the key once: only its
 * SHA-256 and display prefix are stored. A revoked key stops working on every gateway within seconds.
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Knex } from 'knex';
import { createDb } from '@bda/db';
import { migrateToLatest } from '../db/migrate';
import { createKey, listKeys, revokeKey, type KeyRow } from '../keys/key-repository';

const USAGE = `usage:
  keys create --owner <account> [--limit <requests per minute>] [--burst <requests per second>] [--json]
  keys list [--owner <account>] [--all] [--json]
  keys revoke <prefix|id> [--json]`;

export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

function publicRow(r: KeyRow) {
  return {
    id: r.id,
    prefix: r.prefix,
    owner: r.owner,
    rateLimitPerMinute: r.rateLimitPerMinute,
    burstPerSecond: r.burstPerSecond,
    createdAt: r.createdAt.toISOString(),
    revokedAt: r.revokedAt ? r.revokedAt.toISOString() : null,
  };
}

function positive(name: string, v: string | undefined): number | null {
  if (v === undefined) return null;
  if (!/^\d+$/.test(v) || Number(v) <= 0 || Number(v) > 2_147_483_647)
    throw new UsageError(`--${name} must be a positive integer`);
  return Number(v);
}

class UsageError extends Error {}

/** Runs one command against `db`; returns the process exit code. */
export async function runKeysCommand(argv: string[], db: Knex, io: CliIo): Promise<number> {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        owner: { type: 'string' },
        limit: { type: 'string' },
        burst: { type: 'string' },
        all: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
    const [command, ...rest] = positionals;
    if (values.help || !command) {
      io.out(USAGE);
      return values.help ? 0 : 2;
    }
    switch (command) {
      case 'create': {
        if (!values.owner?.trim()) throw new UsageError('create needs --owner <account>');
        const { key, row } = await createKey(db, {
          owner: values.owner.trim(),
          rateLimitPerMinute: positive('limit', values.limit),
          burstPerSecond: positive('burst', values.burst),
        });
        if (values.json) {
          io.out(JSON.stringify({ key, ...publicRow(row) }));
        } else {
          io.out(`key: ${key}`);
          io.out(`id: ${row.id}  prefix: ${row.prefix}  owner: ${row.owner}  limit: ${row.rateLimitPerMinute ?? 'default'}/min`);
          io.out('Store the key now: it is shown only this once and cannot be recovered.');
        }
        return 0;
      }
      case 'list': {
        const rows = await listKeys(db, { owner: values.owner, includeRevoked: values.all });
        if (values.json) {
          io.out(JSON.stringify(rows.map(publicRow)));
          return 0;
        }
        io.out(['id', 'prefix', 'owner', 'limit/min', 'burst/s', 'created', 'revoked'].join('\t'));
        for (const r of rows) {
          const p = publicRow(r);
          io.out(
            [p.id, p.prefix, p.owner, p.rateLimitPerMinute ?? '-', p.burstPerSecond ?? '-', p.createdAt, p.revokedAt ?? '-'].join(
              '\t',
            ),
          );
        }
        return 0;
      }
      case 'revoke': {
        if (rest.length !== 1) throw new UsageError('revoke takes one key id or prefix');
        const row = await revokeKey(db, rest[0]!);
        if (values.json) io.out(JSON.stringify(publicRow(row)));
        else io.out(`revoked key ${row.id} (${row.prefix}, owner ${row.owner}) at ${row.revokedAt?.toISOString()}`);
        return 0;
      }
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.err(`${(err as Error).message}\n${USAGE}`);
      return 2;
    }
    io.err(`error: ${(err as Error).message}`);
    return 1;
  }
}

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.error('DATABASE_URL is not set');
    process.exit(2);
  }
  const db = createDb({ connectionString: url, maxConnections: 1, applicationName: 'gateway-keys' });
  let code = 1;
  try {
    await migrateToLatest(db, url);
    code = await runKeysCommand(process.argv.slice(2), db, {
      out: (l) => process.stdout.write(`${l}\n`),
      err: (l) => process.stderr.write(`${l}\n`),
    });
  } catch (err) {
    console.error(`error: ${(err as Error).message}`);
  } finally {
    await db.destroy();
  }
  process.exitCode = code;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
