import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Envelope } from '@bda/bus';
import type { NodeDropMempoolTx } from './node-payloads';
import { normalizeHex } from './sanitize';
import { runPrepared } from '../write-statements';

/**
 * The PostgreSQL channel the indexer announces its commits on and every api replica listens to (ADR 0025). The api
 * has the same name in `services/api/src/live/live-announcements.ts`.
 */
const LIVE_CHANNEL = 'bda_live';

/** At most this many transaction ids in one notification (PostgreSQL refuses payloads of 8,000 bytes and more). */
const IDS_PER_NOTIFICATION = 100;

/** The announcements (ADR 0025): JSON, one per notification. */
type LiveAnnouncement =
  | { type: 'block'; index_block_hash: string; block_height: number }
  | { type: 'microblock'; microblock_hash: string }
  | { type: 'mempool'; tx_ids: string[] }
  | { type: 'tx'; tx_ids: string[] };

interface TipRow {
  index_block_hash: string;
  block_height: number;
}

/**
 * The highest block of the chain that was canonical at `$1` (the tip when the transaction started) and still is: walks
 * from that old tip down through the blocks a reorg has orphaned since. When the walk ends on an unknown parent (the old
 * chain's lowest stored block had none, as a recording that does not start at the genesis), the height under the lowest
 * block it orphaned: what is canonical below was not on the old tip's stored chain and did not change (a block this
 * transaction stored there is announced through `blocks`), so it is not announced again.
 */
const FORK_HEIGHT_SQL = `WITH RECURSIVE back AS (
    SELECT index_block_hash, parent_index_block_hash, block_height, canonical FROM blocks WHERE index_block_hash = $1
    UNION ALL
    SELECT b.index_block_hash, b.parent_index_block_hash, b.block_height, b.canonical
    FROM back JOIN blocks b ON b.index_block_hash = back.parent_index_block_hash
    WHERE NOT back.canonical
  )
  SELECT coalesce(max(block_height) FILTER (WHERE canonical), min(block_height) - 1)::int AS fork_height,
         coalesce(array_agg(index_block_hash) FILTER (WHERE NOT canonical), '{}') AS orphaned
  FROM back`;

/** Transactions of orphaned blocks that are pending in the mempool now (a reorg returned them there). */
const RESTORED_SQL = `SELECT DISTINCT m.tx_id FROM txs t JOIN mempool_txs m ON m.tx_id = t.tx_id
  WHERE t.index_block_hash = ANY($1::text[]) AND m.status = 'pending' ORDER BY m.tx_id`;

/** The blocks that are canonical now and were not when the transaction started, lowest first. */
const NEW_CANONICAL_SQL = `SELECT index_block_hash, block_height FROM blocks
  WHERE canonical AND (block_height > $1 OR index_block_hash = ANY($2::text[]))
  ORDER BY block_height, index_block_hash`;

const STILL_PENDING_SQL = `SELECT tx_id FROM mempool_txs WHERE tx_id = ANY($1::text[]) AND status = 'pending' ORDER BY tx_id`;
const NOW_DROPPED_SQL = `SELECT tx_id FROM mempool_txs WHERE tx_id = ANY($1::text[]) AND status LIKE 'dropped%' ORDER BY tx_id`;
const NOTIFY_SQL = `SELECT pg_notify($1, $2)`;
const KNOWN_MICROBLOCKS_SQL = `SELECT microblock_hash FROM microblocks WHERE microblock_hash = ANY($1::text[])`;
/** Microblocks stored in the transaction that are canonical at its end (their anchor block is), in stream order. */
const CANONICAL_MICROBLOCKS_SQL = `SELECT microblock_hash FROM microblocks
  WHERE microblock_hash = ANY($1::text[]) AND canonical = true ORDER BY microblock_sequence, microblock_hash`;

/** A Stacks transaction id: SHA-512/256 of the serialized transaction. */
function txIdOfRaw(raw: string): string | undefined {
  if (typeof raw !== 'string' || !/^(0x)?([0-9a-fA-F]{2})+$/.test(raw)) return undefined;
  return `0x${createHash('sha512-256')
    .update(Buffer.from(raw.replace(/^0x/, ''), 'hex'))
    .digest('hex')}`;
}

/**
 * Collects what one indexer transaction changed that live subscribers care about, and announces it with
 * `pg_notify` just before the transaction commits (ADR 0025). PostgreSQL delivers notifications only when (and if) the
 * transaction commits, in commit order, and drops those of a rolled-back savepoint: so an announcement never names
 * data that is not committed, and a dead-lettered record announces nothing.
 *
 * Blocks: the blocks canonical at the end of the transaction that were not at its start, lowest first: a block that
 * extends the tip, every block of a branch a reorg made canonical, a block filling a gap under a canonical child.
 * A block that became canonical and was orphaned again in the same transaction is not announced.
 *
 * Microblocks: those stored in the transaction that are canonical at its end.
 *
 * Mempool: transactions that entered it in the transaction and are pending at its end, those a reorg returned to it
 * from the blocks it orphaned, and (as `tx`) those dropped from it.
 */
export class LiveAnnouncer {
  /** The tip when the transaction's first block arrived (null: none yet); undefined: no block yet in this transaction. */
  private startTip: TipRow | null | undefined;
  /** Blocks at or below the starting tip's height that were not stored before (see `note`). */
  private readonly blocks = new Set<string>();
  private readonly mempool = new Set<string>();
  /** Microblocks that were not stored before their event (a repeated event announces nothing). */
  private readonly microblocks = new Set<string>();
  private readonly dropped = new Set<string>();

  /** Forgets everything collected (a new transaction starts, or the previous one failed). */
  reset(): void {
    this.startTip = undefined;
    this.blocks.clear();
    this.mempool.clear();
    this.dropped.clear();
    this.microblocks.clear();
  }

  /** Called before an envelope is applied in `trx`. */
  async note(trx: Knex.Transaction, env: Envelope): Promise<void> {
    switch (env.path) {
      case '/new_block': {
        if (this.startTip === undefined) {
          const [tip] = await runPrepared<TipRow>(trx, 'SELECT index_block_hash, block_height FROM chain_tip', []);
          this.startTip = tip ?? null;
        }
        // Blocks above the starting tip are found by height at the end. One at or below it is new canonical data only
        // when it fills a gap under a canonical child: remembered if it is not stored yet (a duplicate changes nothing).
        const body = env.body as { index_block_hash?: unknown; block_height?: unknown } | null;
        const hash = body?.index_block_hash;
        const height = body?.block_height;
        if (typeof hash !== 'string' || typeof height !== 'number' || this.startTip === null) return;
        if (height > this.startTip.block_height) return;
        const known = await runPrepared(trx, 'SELECT 1 FROM blocks WHERE index_block_hash = $1', [normalizeHex(hash)]);
        if (known.length === 0) this.blocks.add(normalizeHex(hash));
        return;
      }
      case '/new_mempool_tx': {
        if (!Array.isArray(env.body)) return;
        const ids: string[] = [];
        for (const raw of env.body as unknown[]) {
          const id = txIdOfRaw(raw as string);
          if (id) ids.push(id);
        }
        if (ids.length === 0) return;
        // Only transactions that enter the mempool now: one announced again while pending is not new.
        const pending = new Set((await runPrepared<{ tx_id: string }>(trx, STILL_PENDING_SQL, [ids])).map((r) => r.tx_id));
        for (const id of ids) if (!pending.has(id)) this.mempool.add(id);
        return;
      }
      case '/new_microblocks': {
        const txs = (env.body as { transactions?: unknown } | null)?.transactions;
        if (!Array.isArray(txs)) return;
        const hashes = new Set<string>();
        for (const tx of txs as Array<{ microblock_hash?: unknown }>) {
          if (typeof tx?.microblock_hash === 'string') hashes.add(normalizeHex(tx.microblock_hash));
        }
        if (hashes.size === 0) return;
        const known = new Set(
          (await runPrepared<{ microblock_hash: string }>(trx, KNOWN_MICROBLOCKS_SQL, [[...hashes]])).map(
            (r) => r.microblock_hash,
          ),
        );
        for (const h of hashes) if (!known.has(h)) this.microblocks.add(h);
        return;
      }
      case '/drop_mempool_tx': {
        const ids = (env.body as NodeDropMempoolTx | null)?.dropped_txids;
        if (Array.isArray(ids)) for (const id of ids) if (typeof id === 'string') this.dropped.add(normalizeHex(id));
        return;
      }
      default:
        return;
    }
  }

  /** Announces what the transaction changed (inside it, so the notifications go out with its commit), then forgets. */
  async flush(trx: Knex.Transaction): Promise<void> {
    const out: LiveAnnouncement[] = [];
    if (this.startTip !== undefined) {
      let fork = -1;
      let orphaned: string[] = [];
      if (this.startTip !== null) {
        const [row] = await runPrepared<{ fork_height: number; orphaned: string[] }>(trx, FORK_HEIGHT_SQL, [
          this.startTip.index_block_hash,
        ]);
        fork = row?.fork_height ?? -1;
        orphaned = row?.orphaned ?? [];
      }
      const rows = await runPrepared<TipRow>(trx, NEW_CANONICAL_SQL, [fork, [...this.blocks]]);
      for (const r of rows) out.push({ type: 'block', index_block_hash: r.index_block_hash, block_height: r.block_height });
      // A reorg returns the orphaned blocks' transactions that the new chain does not hold to the mempool: they enter it.
      if (orphaned.length > 0) {
        for (const r of await runPrepared<{ tx_id: string }>(trx, RESTORED_SQL, [orphaned])) this.mempool.add(r.tx_id);
      }
    }
    if (this.microblocks.size > 0) {
      for (const r of await runPrepared<{ microblock_hash: string }>(trx, CANONICAL_MICROBLOCKS_SQL, [[...this.microblocks]])) {
        out.push({ type: 'microblock', microblock_hash: r.microblock_hash });
      }
    }
    if (this.mempool.size > 0) {
      const rows = await runPrepared<{ tx_id: string }>(trx, STILL_PENDING_SQL, [[...this.mempool]]);
      for (const ids of chunks(rows.map((r) => r.tx_id))) out.push({ type: 'mempool', tx_ids: ids });
    }
    if (this.dropped.size > 0) {
      const rows = await runPrepared<{ tx_id: string }>(trx, NOW_DROPPED_SQL, [[...this.dropped]]);
      for (const ids of chunks(rows.map((r) => r.tx_id))) out.push({ type: 'tx', tx_ids: ids });
    }
    this.reset();
    for (const a of out) await runPrepared(trx, NOTIFY_SQL, [LIVE_CHANNEL, JSON.stringify(a)]);
  }
}

function chunks(ids: string[]): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < ids.length; i += IDS_PER_NOTIFICATION) out.push(ids.slice(i, i + IDS_PER_NOTIFICATION));
  return out;
}
