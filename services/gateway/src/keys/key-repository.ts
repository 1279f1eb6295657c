import type { Knex } from 'knex';
import { displayPrefix, generateKey, KEY_PREFIX } from './key-format';

export interface KeyRow {
  id: string;
  prefix: string;
  keyHash: Buffer;
  owner: string;
  rateLimitPerMinute: number | null;
  burstPerSecond: number | null;
  createdAt: Date;
  revokedAt: Date | null;
}

const TABLE = 'gateway.api_keys';

interface DbRow {
  id: string;
  prefix: string;
  key_hash: Buffer;
  owner: string;
  rate_limit_per_minute: number | null;
  burst_per_second: number | null;
  created_at: Date;
  revoked_at: Date | null;
}

function toKeyRow(r: DbRow): KeyRow {
  return {
    id: String(r.id),
    prefix: r.prefix,
    keyHash: r.key_hash,
    owner: r.owner,
    rateLimitPerMinute: r.rate_limit_per_minute,
    burstPerSecond: r.burst_per_second,
    createdAt: r.created_at,
    revokedAt: r.revoked_at,
  };
}

export interface CreateKeyInput {
  owner: string;
  rateLimitPerMinute?: number | null;
  burstPerSecond?: number | null;
}

/** Creates a key; the returned `key` is the only time it exists outside the client's hands. */
export async function createKey(db: Knex, input: CreateKeyInput): Promise<{ key: string; row: KeyRow }> {
  const k = generateKey();
  const [row] = (await db(TABLE)
    .insert({
      prefix: k.prefix,
      key_hash: k.hash,
      owner: input.owner,
      rate_limit_per_minute: input.rateLimitPerMinute ?? null,
      burst_per_second: input.burstPerSecond ?? null,
    })
    .returning('*')) as DbRow[];
  return { key: k.key, row: toKeyRow(row!) };
}

export async function findByPrefix(db: Knex, prefix: string): Promise<KeyRow[]> {
  const rows = (await db(TABLE).where({ prefix }).select('*')) as DbRow[];
  return rows.map(toKeyRow);
}

export async function listKeys(db: Knex, opts: { owner?: string; includeRevoked?: boolean } = {}): Promise<KeyRow[]> {
  const q = db(TABLE).select('*').orderBy('id');
  if (opts.owner) q.where({ owner: opts.owner });
  if (!opts.includeRevoked) q.whereNull('revoked_at');
  return ((await q) as DbRow[]).map(toKeyRow);
}

/**
 * Revokes by id (digits) or by display prefix (or the whole key, reduced to its prefix). A prefix that
 * matches several active keys is refused rather than revoking them all.
 */
export async function revokeKey(db: Knex, ref: string): Promise<KeyRow> {
  return db.transaction(async (trx) => {
    let rows: DbRow[];
    if (/^\d+$/.test(ref)) {
      rows = (await trx(TABLE).where({ id: ref }).forUpdate().select('*')) as DbRow[];
    } else if (ref.startsWith(KEY_PREFIX)) {
      rows = (await trx(TABLE)
        .where({ prefix: displayPrefix(ref) })
        .whereNull('revoked_at')
        .forUpdate()
        .select('*')) as DbRow[];
    } else {
      throw new Error(`"${ref}" is neither a key id nor a key prefix (${KEY_PREFIX}…)`);
    }
    if (rows.length === 0) throw new Error(`no active key matches "${ref}"`);
    if (rows.length > 1) throw new Error(`"${ref}" matches ${rows.length} keys: revoke by id`);
    const row = rows[0]!;
    if (row.revoked_at) return toKeyRow(row);
    const [updated] = (await trx(TABLE).where({ id: row.id }).update({ revoked_at: trx.fn.now() }).returning('*')) as DbRow[];
    return toKeyRow(updated!);
  });
}

export async function keyVersion(db: Knex): Promise<string> {
  const row = (await db('gateway.api_key_version').first('version')) as { version: string } | undefined;
  return row ? String(row.version) : '0';
}
