import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePorts, testInfra, expectMessage } from '@bda/test-support';
import { loadSchemaSources, SchemaValidator } from '@bda/api';
import type { RecordedEvent } from '@bda/observer';
import { decodeTransaction } from '@bda/stacks-codec';
import { replayEvents } from '../../scripts/lib/replay-events';
import { EXPECTED_TIPS, loadFixture } from '../support/fixtures';
import {
  deadLetterMark,
  expectNoDeadLetterSince,
  newBlockBody,
  rawTxOf,
  transferEvent,
  transferWithNonce,
  type BlockRef,
  type RawTx,
  minedTx,
} from '../support/node-event-sender';
import { TestSystem } from '../support/test-system';

/**
 * Reads while the indexer writes. The recorded node events of two fixtures (then made-up forks) stream through the
 * observer and the Kafka bus while concurrent pollers hammer the api; every single answer must be internally
 * consistent and be the answer of a state the canonical chain really goes through.
 *
 * The model. Replaying the events in order through the fork-choice rules (docs/adr/0002: a block higher
 * than the tip becomes the tip with its ancestors, a tie keeps the first seen, a parent arriving under a canonical
 * child joins the chain below it) gives the sequence of chain states the indexer can commit: S0 (no block), S1, ….
 * The indexer applies a batch of events in one transaction, so what the api can show is some state after some event
 * (states inside a batch are skipped, never mixed). Each api handler reads with one statement, its own snapshot, and names
 * the tip it read in its ETag (`W/"<tip index block hash>[:<tip microblock>]"`), so a chain answer says which state it
 * claims to come from, and must then equal the model's answer for that state exactly.
 *
 * The window. Each answer must match a state in [lb, ub]:
 * - ub: the state after the last event whose POST had started when the answer arrived (the indexer cannot have
 *   applied an event the observer had not been given);
 * - lb: each poller sends one request at a time, and in PostgreSQL a snapshot taken after another one ended sees
 *   everything that one saw: a poller's answers never go back. lb is the first state its previous answers matched.
 * An answer without a tip (a 404, a transaction in the mempool) must match some state in the window.
 *
 * The fixtures. `mainnet-reorg-scenario1.tsv` (heights 1–47) forks at heights 30 (the first-seen block is replaced
 * when the other's child arrives), 45 and 47 (ties, the first seen stays): 3 of its 50 blocks end non-canonical.
 * `epoch-3-transition.tsv` (heights 0–50) starts with the genesis block 0x55c9…, which is the parent of the mainnet
 * fixture's first block: replayed second, its genesis joins the chain below the mainnet blocks, its blocks 1–47 are a
 * lower fork, and its block 48 replaces the 47 mainnet blocks at once (a 47-block reorg). Both end at the tips the
 * fixtures README gives.
 *
 * The fixtures hold only two commits that change blocks below the tip (the reorgs at 31 and 48), and a read that
 * straddles a commit only shows a snapshot bug when that commit rewrites what the read looks at. So a third phase
 * posts made-up blocks (the shared node-event makers) on top of the epoch-3 tip: two branches that keep overtaking
 * each other, ~40 reorgs of growing depth, each block mining a transfer of its own and one both branches mine at that
 * height (in another position), so that blocks, transactions and the histories of both parties change at every reorg.
 */

const MAINNET = 'mainnet-reorg-scenario1.tsv';
const EPOCH3 = 'epoch-3-transition.tsv';
/** `microblock_sequence` of an anchored transaction. */
const ANCHORED = 2147483647;
/** Default `event_limit` of `/extended/v1/tx/{tx_id}` and largest page of `/extended/v2/blocks`, of the api. */
const EVENT_LIMIT = 20;
const BLOCK_LIMIT_MAX = 30;
/** Pause after each block or microblock event, so that pollers see the chain at many heights (a node's pace, faster). */
const PACE_MS = 60;
const POLLERS = ['tip', 'block-list', 'block-list-2', 'block', 'tx', 'address'] as const;
/** The made-up phase, and how many times its branches overtake each other. */
const FLIP = 'flip-flop';
const FLIP_ROUNDS = 40;

// ---------------------------------------------------------------------------------------------------------------
// The made-up phase: two branches from the epoch-3 tip overtaking each other

let nextNonce = 7_000_000n;

/**
 * Branch A gets a block above the fork; then, round after round, the branch behind grows to one block above the one
 * ahead (its first new block ties, the next one takes over): round r orphans the r blocks of the other branch.
 */
function flipFlopEvents(): RecordedEvent[] {
  const tipHash = EXPECTED_TIPS[EPOCH3]!.indexBlockHash;
  const tipBody = loadFixture(EPOCH3)
    .filter((e) => e.path === '/new_block')
    .map((e) => JSON.parse(e.body) as NodeBlockBody)
    .find((b) => b.index_block_hash === tipHash)!;
  const fork: BlockRef = { index_block_hash: tipHash, block_hash: tipBody.block_hash, block_height: tipBody.block_height };
  const tips: Record<'A' | 'B', BlockRef> = { A: fork, B: fork };
  const shared = new Map<number, RawTx>();
  const out: RecordedEvent[] = [];
  let ahead: 'A' | 'B' | null = null;
  for (let round = 0; round < FLIP_ROUNDS; round++) {
    const branch: 'A' | 'B' = ahead === 'A' ? 'B' : 'A';
    const target = (ahead ? tips[ahead].block_height : fork.block_height) + 1;
    while (tips[branch].block_height < target) {
      const parent = tips[branch];
      const height = parent.block_height + 1;
      const both = shared.get(height) ?? transferWithNonce(nextNonce++);
      shared.set(height, both);
      const own = transferWithNonce(nextNonce++);
      const txs = branch === 'A' ? [both, own] : [own, both];
      const { ref, body } = newBlockBody(`reads-during-ingest ${branch} ${height}`, parent, {
        txs: txs.map((t, i) => minedTx(t, i)),
        events: txs.map((t, i) => transferEvent(t.txid, i)),
      });
      out.push({
        id: String(out.length + 1),
        receivedAt: '2024-01-01 00:00:00+00',
        path: '/new_block',
        body: JSON.stringify(body),
      });
      tips[branch] = ref;
    }
    ahead = branch;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// The model

interface NodeBlockBody {
  index_block_hash: string;
  block_hash: string;
  block_height: number;
  parent_index_block_hash: string;
  parent_block_hash: string;
  burn_block_hash: string;
  burn_block_height: number;
  burn_block_time: number;
  miner_txid?: string | null;
  pox_v1_unlock_height?: number;
  pox_v2_unlock_height?: number;
  pox_v3_unlock_height?: number;
  transactions: Array<{
    txid: string;
    tx_index: number;
    raw_tx: string;
    status: string;
    microblock_hash?: string | null;
    microblock_sequence?: number | null;
  }>;
  events: Array<Record<string, unknown> & { txid: string; event_index: number }>;
}

interface ModelTx {
  txId: string;
  txIndex: number;
  status: string;
  /** Event indexes of its events in the block, ascending. */
  eventIndexes: number[];
  microblockHash: string;
  microblockSequence: number;
}

interface ModelBlock {
  fixture: string;
  indexHash: string;
  hash: string;
  height: number;
  parentIndexHash: string;
  parentHash: string;
  burnHash: string;
  burnHeight: number;
  burnTime: number;
  minerTxid: string;
  txs: ModelTx[];
  pox: [number | null, number | null, number | null];
}

interface ChainState {
  no: number;
  label: string;
  tip: ModelBlock | null;
  micro: { hash: string; sequence: number } | null;
  byHeight: Map<number, ModelBlock>;
  lowest: number;
  count: number;
  etag: string;
  /** Canonical transactions: the block that mines each. */
  minedIn: Map<string, { block: ModelBlock; tx: ModelTx }>;
}

const hex = (h: string) => (h.toLowerCase().startsWith('0x') ? h.toLowerCase() : `0x${h.toLowerCase()}`);
const short = (h: string) => `${h.slice(0, 10)}…`;

function modelBlock(fixture: string, b: NodeBlockBody): ModelBlock {
  const txs = b.transactions.map((t) => ({
    txId: hex(t.txid),
    txIndex: t.tx_index,
    status: t.status,
    eventIndexes: b.events
      .filter((e) => hex(e.txid) === hex(t.txid))
      .map((e) => e.event_index)
      .sort((x, y) => x - y),
    microblockHash: t.microblock_hash ? hex(t.microblock_hash) : '',
    microblockSequence: t.microblock_sequence ?? ANCHORED,
  }));
  return {
    fixture,
    indexHash: hex(b.index_block_hash),
    hash: hex(b.block_hash),
    height: b.block_height,
    parentIndexHash: hex(b.parent_index_block_hash),
    parentHash: hex(b.parent_block_hash),
    burnHash: hex(b.burn_block_hash),
    burnHeight: b.burn_block_height,
    burnTime: b.burn_block_time,
    minerTxid: b.miner_txid ? hex(b.miner_txid) : '',
    txs,
    pox: [b.pox_v1_unlock_height ?? null, b.pox_v2_unlock_height ?? null, b.pox_v3_unlock_height ?? null],
  };
}

interface Phase {
  name: string;
  events: RecordedEvent[];
}

/** What a phase's pollers mostly ask about: its transactions and principals. */
interface Focus {
  txIds: string[];
  principals: string[];
}

interface Model {
  /** Every phase's events, in order, ids prefixed with the phase (`<phase>:<id>`). */
  events: RecordedEvent[];
  /** Index of the first event of each phase in `events`. */
  start: Map<string, number>;
  focus: Map<string, Focus>;
  states: ChainState[];
  /** The state after each event. */
  stateAfter: number[];
  statesByEtag: Map<string, number[]>;
  /** Every block of the fixtures (the first copy of a repeated one), by index block hash. */
  blocks: Map<string, ModelBlock>;
  /** Every transaction id the fixtures name: mined in a block, streamed in a microblock, announced to the mempool. */
  txIds: string[];
  principals: string[];
}

function buildModel(phases: Phase[]): Model {
  const events: RecordedEvent[] = [];
  const start = new Map<string, number>();
  for (const phase of phases) {
    start.set(phase.name, events.length);
    for (const e of phase.events) events.push({ ...e, id: `${phase.name}:${e.id}` });
  }
  const blocks = new Map<string, ModelBlock>();
  const canon = new Map<number, ModelBlock>();
  let tip: ModelBlock | null = null;
  let micro: { hash: string; sequence: number } | null = null;
  const states: ChainState[] = [];
  const push = (why: string) => {
    const heights = [...canon.keys()].sort((a, b) => a - b);
    const lowest = heights[0] ?? 0;
    heights.forEach((h, i) => {
      if (h !== lowest + i) throw new Error(`model: canonical heights not contiguous (${heights.join(',')})`);
    });
    const minedIn = new Map<string, { block: ModelBlock; tx: ModelTx }>();
    for (const b of canon.values()) {
      for (const tx of b.txs) {
        if (minedIn.has(tx.txId)) throw new Error(`model: ${tx.txId} mined twice on one chain`);
        minedIn.set(tx.txId, { block: b, tx });
      }
    }
    const no = states.length;
    const etag = tip ? `W/"${tip.indexHash}${micro ? `:${micro.hash}` : ''}"` : 'W/"no-tip"';
    states.push({
      no,
      label: `S${no}[${tip ? `tip ${tip.height} ${short(tip.indexHash)}${micro ? ` +mb${micro.sequence}` : ''}` : 'no tip'}, ${canon.size} blocks; ${why}]`,
      tip,
      micro,
      byHeight: new Map(canon),
      lowest,
      count: canon.size,
      etag,
      minedIn,
    });
  };
  push('start');
  const isCanonical = (b: ModelBlock) => canon.get(b.height) === b;
  /** Makes `b` and its non-canonical ancestors canonical, orphaning what held their heights (`reorgToTip`). */
  const adopt = (b: ModelBlock, upToHeight?: number) => {
    const branch: ModelBlock[] = [];
    let x: ModelBlock | undefined = b;
    while (x && !isCanonical(x)) {
      branch.push(x);
      x = blocks.get(x.parentIndexHash);
    }
    const orphanFrom = x ? x.height + 1 : branch[branch.length - 1]!.height;
    for (const h of [...canon.keys()]) if (h >= orphanFrom && (upToHeight === undefined || h <= upToHeight)) canon.delete(h);
    for (const y of branch) canon.set(y.height, y);
  };
  const stateAfter: number[] = [];
  const txIdsOf = new Map<string, Set<string>>(phases.map((p) => [p.name, new Set<string>()]));
  const principalCountsOf = new Map<string, Map<string, number>>(phases.map((p) => [p.name, new Map<string, number>()]));
  let txIds = new Set<string>();
  let principalCounts = new Map<string, number>();
  const count = (p: unknown) => {
    if (typeof p === 'string' && p !== '') principalCounts.set(p, (principalCounts.get(p) ?? 0) + 1);
  };
  for (const e of events) {
    const fixture = e.id.split(':')[0]!;
    txIds = txIdsOf.get(fixture)!;
    principalCounts = principalCountsOf.get(fixture)!;
    if (e.path === '/new_block') {
      const body = JSON.parse(e.body) as NodeBlockBody;
      const b = modelBlock(fixture, body);
      if (!blocks.has(b.indexHash)) {
        for (const t of b.txs) txIds.add(t.txId);
        for (const t of body.transactions) {
          try {
            const d = decodeTransaction(t.raw_tx);
            count(d.senderAddress);
            const payload = d.payload as { recipient?: unknown; contractId?: unknown };
            count(payload.recipient);
            count(payload.contractId);
          } catch {
            // a burnchain operation has no transaction bytes
          }
        }
        for (const ev of body.events) {
          for (const v of Object.values(ev)) {
            if (v && typeof v === 'object') {
              const o = v as Record<string, unknown>;
              count(o['sender']);
              count(o['recipient']);
              count(o['locked_address']);
            }
          }
        }
        const parentKnown = blocks.has(b.parentIndexHash);
        if (!parentKnown && tip && b.height - 1 > tip.height) throw new Error('model: parked blocks are not modelled');
        blocks.set(b.indexHash, b);
        if (!tip || b.height > tip.height) {
          // So the tip's height never goes down in the model (each reorg brings a higher block): nor may a poller's.
          adopt(b);
          tip = b;
          micro = null;
          push(`${fixture} block ${b.height} ${short(b.indexHash)}`);
        } else if ([...canon.values()].some((c) => c.parentIndexHash === b.indexHash)) {
          adopt(b, b.height);
          push(`${fixture} block ${b.height} ${short(b.indexHash)} joins under its child`);
        }
      }
    } else if (e.path === '/new_microblocks') {
      const body = JSON.parse(e.body) as {
        parent_index_block_hash: string;
        transactions: Array<{ txid: string; microblock_hash: string; microblock_sequence: number }>;
      };
      for (const t of body.transactions) txIds.add(hex(t.txid));
      if (tip && hex(body.parent_index_block_hash) === tip.indexHash) {
        for (const t of body.transactions) {
          if (!micro || t.microblock_sequence > micro.sequence)
            micro = { hash: hex(t.microblock_hash), sequence: t.microblock_sequence };
        }
        push(`microblocks on the tip`);
      }
    } else if (e.path === '/new_mempool_tx') {
      for (const raw of JSON.parse(e.body) as string[]) txIds.add(rawTxOf(raw.replace(/^0x/, '')).txid);
    }
    stateAfter.push(states.length - 1);
  }
  const statesByEtag = new Map<string, number[]>();
  for (const s of states) statesByEtag.set(s.etag, [...(statesByEtag.get(s.etag) ?? []), s.no]);
  const focus = new Map<string, Focus>();
  for (const phase of phases) {
    // Principals of every size of history: the busiest, and some named once or twice.
    const ranked = [...principalCountsOf.get(phase.name)!].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([p]) => p);
    focus.set(phase.name, {
      txIds: [...txIdsOf.get(phase.name)!],
      principals: [...ranked.slice(0, 8), ...ranked.filter((_, i) => i >= 8 && i % 9 === 0).slice(0, 6)],
    });
  }
  const all = (k: keyof Focus) => [...new Set([...focus.values()].flatMap((f) => f[k]))];
  return { events, start, focus, states, stateAfter, statesByEtag, blocks, txIds: all('txIds'), principals: all('principals') };
}

const model = buildModel([
  { name: MAINNET, events: loadFixture(MAINNET) },
  { name: EPOCH3, events: loadFixture(EPOCH3) },
  { name: FLIP, events: flipFlopEvents() },
]);

/** The canonical block with this block hash or index block hash (the highest, as the api picks), or undefined. */
function canonicalByHash(s: ChainState, hash: string): ModelBlock | undefined {
  let found: ModelBlock | undefined;
  for (const b of s.byHeight.values()) {
    if ((b.indexHash === hash || b.hash === hash) && (!found || b.height > found.height)) found = b;
  }
  return found;
}

// ---------------------------------------------------------------------------------------------------------------
// Answers (the parts checked)

interface BlockAnswer {
  canonical: boolean;
  height: number;
  hash: string;
  index_block_hash: string;
  parent_block_hash: string;
  parent_index_block_hash: string;
  burn_block_hash: string;
  burn_block_height: number;
  burn_block_time: number;
  miner_txid: string;
  tx_count: number;
}

interface BlockListAnswer {
  limit: number;
  offset: number;
  total: number;
  next_cursor: string | null;
  prev_cursor: string | null;
  cursor: string | null;
  results: BlockAnswer[];
}

interface StatusAnswer {
  pox_v1_unlock_height: number | null;
  pox_v2_unlock_height: number | null;
  pox_v3_unlock_height: number | null;
  chain_tip: {
    block_height: number;
    block_hash: string;
    index_block_hash: string;
    burn_block_height: number;
    microblock_hash?: string;
    microblock_sequence?: number;
  } | null;
}

interface TxAnswer {
  tx_id: string;
  tx_status: string;
  canonical?: boolean;
  block_hash?: string;
  block_height?: number;
  burn_block_height?: number;
  parent_block_hash?: string;
  tx_index?: number;
  event_count?: number;
  microblock_hash?: string;
  microblock_sequence?: number;
  events?: Array<{ event_index: number; tx_id: string }>;
}

interface TxListAnswer {
  limit: number;
  offset: number;
  total: number;
  results: TxAnswer[];
}

/** What the api must answer for a canonical block. */
function blockView(b: ModelBlock): Record<string, unknown> {
  return {
    canonical: true,
    height: b.height,
    hash: b.hash,
    index_block_hash: b.indexHash,
    parent_block_hash: b.parentHash,
    parent_index_block_hash: b.parentIndexHash,
    burn_block_hash: b.burnHash,
    burn_block_height: b.burnHeight,
    burn_block_time: b.burnTime,
    miner_txid: b.minerTxid,
    tx_count: b.txs.length,
  };
}

/** The differing fields of `got` against `expected` (only the keys of `expected`), or null when none. */
function diff(got: object, expected: Record<string, unknown>): string | null {
  const g = got as Record<string, unknown>;
  const out: string[] = [];
  for (const [k, v] of Object.entries(expected)) {
    if (JSON.stringify(g[k]) !== JSON.stringify(v)) out.push(`${k} ${JSON.stringify(g[k])} (expected ${JSON.stringify(v)})`);
  }
  return out.length ? out.join(', ') : null;
}

const blockMismatch = (a: BlockAnswer, b: ModelBlock | undefined, what: string): string | null =>
  b ? diff(a, blockView(b)) && `${what}: ${diff(a, blockView(b))}` : `${what}: no canonical block`;

/** The model's `/extended/v2/blocks` answer (`null`: 404). */
function expectedBlockList(s: ChainState, limit: number, offset: number, cursor?: string) {
  let anchor = s.tip?.height ?? 0;
  if (cursor !== undefined) {
    const at = [...s.byHeight.values()].find((b) => b.indexHash === cursor);
    if (!at || !s.tip) return null;
    anchor = at.height;
  }
  const high = anchor - offset;
  const results: ModelBlock[] = [];
  if (s.tip && high <= s.tip.height && high >= s.lowest) {
    for (let h = high; h >= Math.max(high - limit + 1, s.lowest); h--) results.push(s.byHeight.get(h)!);
  } else if (cursor !== undefined) {
    return null;
  }
  const first = results[0];
  return {
    total: s.count,
    cursor: first?.indexHash ?? null,
    next_cursor: first ? (s.byHeight.get(first.height + limit)?.indexHash ?? null) : null,
    prev_cursor: first ? (s.byHeight.get(first.height - limit)?.indexHash ?? null) : null,
    results,
  };
}

function txMismatch(a: TxAnswer, s: ChainState, txId: string): string | null {
  const m = s.minedIn.get(txId);
  if (!m) return `${short(txId)} is mined in no canonical block`;
  const { block, tx } = m;
  const problem = diff(a, {
    tx_id: txId,
    tx_status: tx.status,
    canonical: true,
    block_hash: block.hash,
    block_height: block.height,
    burn_block_height: block.burnHeight,
    parent_block_hash: block.parentHash,
    tx_index: tx.txIndex,
    event_count: tx.eventIndexes.length,
    microblock_hash: tx.microblockHash,
    microblock_sequence: tx.microblockSequence,
  });
  if (problem) return `tx ${short(txId)} in block ${block.height} ${short(block.indexHash)}: ${problem}`;
  const events = (a.events ?? []).map((e) => [e.event_index, e.tx_id]);
  const expected = tx.eventIndexes.slice(0, EVENT_LIMIT).map((i) => [i, txId]);
  if (JSON.stringify(events) !== JSON.stringify(expected)) {
    return `tx ${short(txId)} events ${JSON.stringify(events.map((e) => e[0]))} (expected ${JSON.stringify(expected.map((e) => e[0]))})`;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------------
// Pollers

const validator = new SchemaValidator(loadSchemaSources());

/** A seeded PRNG (mulberry32): a failing run can be repeated with its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Answer<T> {
  status: number;
  body: T;
  etag: string | null;
  cacheControl: string | null;
}

interface AddressRecord {
  poller: string;
  principal: string;
  limit: number;
  offset: number;
  total: number;
  results: Array<{ tx_id: string; block_height: number; microblock_sequence: number; tx_index: number }>;
  /** The states the answer matched (its ETag's, in its window). */
  states: number[];
}

/** The state of the replay and every poller's findings. */
class Run {
  /** Events the observer accepted so far (all phases). */
  accepted = 0;
  /** While a replay runs, event `accepted` may be in flight (posted, not yet answered): the indexer may have it. */
  replaying = false;
  /** The phase streaming in: pollers ask mostly about its transactions and principals. */
  focus: Focus = { txIds: [], principals: [] };
  phase = '';
  stopped = false;
  violations: string[] = [];
  addressRecords: AddressRecord[] = [];

  constructor(
    readonly apiUrl: string,
    readonly seed: number,
  ) {}

  /** The newest state the indexer can have committed now. */
  ub(): number {
    return model.stateAfter[Math.min(this.accepted - (this.replaying ? 0 : 1), model.events.length - 1)]!;
  }
}

class Poller {
  lb: number;
  answers = 0;
  statuses = new Map<number, number>();
  /** Distinct states this poller was shown by an ETag, in order. */
  seen: number[] = [];
  /** Tip heights `/extended` showed, in order (consecutive repeats dropped). */
  tipHeights: number[] = [];
  readonly random: () => number;

  constructor(
    readonly run: Run,
    readonly name: string,
    lb: number,
  ) {
    this.lb = lb;
    this.random = prng(run.seed + name.length * 7919 + name.charCodeAt(0));
  }

  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.random() * xs.length)]!;
  }

  /** Mostly one of the streaming phase's, sometimes any. */
  pickFocused(k: keyof Focus): string {
    const focused = this.run.focus[k];
    return this.pick(focused.length && this.random() < 0.75 ? focused : model[k]);
  }

  int(lo: number, hi: number): number {
    return lo + Math.floor(this.random() * (hi - lo + 1));
  }

  violation(message: string): void {
    this.run.violations.push(`[${this.name}] ${message}`);
  }

  /**
   * GETs `path`; every answer must be 200, 304 or (where allowed) 404, JSON, and match the OpenAPI document's schema
   * for `template`. Returns null (after recording why) for anything else.
   */
  async get<T>(template: string, path: string, opts: { allow404?: boolean; headers?: Record<string, string> } = {}) {
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${this.run.apiUrl}${path}`, { headers: opts.headers });
      text = await res.text();
    } catch (err) {
      const cause = (err as Error).cause as Error | undefined;
      this.violation(`GET ${path}: request failed: ${(err as Error).message}${cause ? ` (${cause.message})` : ''}`);
      return null;
    }
    this.answers += 1;
    this.statuses.set(res.status, (this.statuses.get(res.status) ?? 0) + 1);
    // 304 only answers a revalidation (If-None-Match); 404 only where something may not (or no longer) be there.
    const allowed = [200, ...(opts.headers?.['If-None-Match'] ? [304] : []), ...(opts.allow404 ? [404] : [])];
    if (!allowed.includes(res.status)) {
      this.violation(`GET ${path}: HTTP ${res.status} ${text.slice(0, 300)}`);
      return null;
    }
    let body: T | undefined;
    if (res.status !== 304) {
      try {
        body = JSON.parse(text) as T;
      } catch {
        this.violation(`GET ${path}: HTTP ${res.status} body is not JSON: ${text.slice(0, 200)}`);
        return null;
      }
      try {
        validator.validateResponse(template, 'get', res.status, body);
      } catch (err) {
        this.violation(`GET ${path}: ${(err as Error).message.slice(0, 400)}`);
        return null;
      }
    }
    const answer: Answer<T> = {
      status: res.status,
      body: body as T,
      etag: res.headers.get('etag'),
      cacheControl: res.headers.get('cache-control'),
    };
    return answer;
  }

  /**
   * The answer must match a state in [lb, ub] — with `etag`, one of the states that ETag names. `match` gives null
   * when the state explains the answer, else why not. Moves lb to the first matching state; returns the matching
   * states (empty after recording a violation).
   */
  settle(what: string, match: (s: ChainState) => string | null, etag?: string | null): number[] {
    const ub = this.run.ub();
    const lb = this.lb;
    let candidates: number[];
    if (etag !== undefined) {
      const named = model.statesByEtag.get(etag ?? '') ?? [];
      candidates = named.filter((n) => n >= lb && n <= ub);
      if (candidates.length === 0) {
        this.violation(
          `${what}: ETag ${etag} names ${named.length ? named.map((n) => model.states[n]!.label).join(', ') : 'no state of the chain'}, ` +
            `outside the states possible for this answer (${model.states[lb]!.label} … ${model.states[ub]!.label})`,
        );
        return [];
      }
    } else {
      candidates = [];
      for (let n = lb; n <= ub; n++) candidates.push(n);
    }
    const matched: number[] = [];
    const reasons: string[] = [];
    for (const n of candidates) {
      const why = match(model.states[n]!);
      if (why === null) matched.push(n);
      else reasons.push(`${model.states[n]!.label}: ${why}`);
    }
    if (matched.length === 0) {
      this.violation(
        `${what}: matches no state of the chain between ${model.states[lb]!.label} and ${model.states[ub]!.label}; ` +
          reasons.slice(-3).join(' | '),
      );
      return [];
    }
    this.lb = matched[0]!;
    if (etag !== undefined && this.seen[this.seen.length - 1] !== matched[0]) this.seen.push(matched[0]!);
    return matched;
  }

  /** A chain answer (200/304) names its snapshot's tip; a mempool answer must not (never cached). */
  expectChainHeaders(path: string, a: Answer<unknown>): boolean {
    if (!a.etag || a.cacheControl !== 'public, no-cache') {
      this.violation(`GET ${path}: chain answer with ETag ${a.etag} and Cache-Control ${a.cacheControl}`);
      return false;
    }
    return true;
  }

  // --- the checks of each endpoint -------------------------------------------------------------------------

  private lastStatusEtag: string | null = null;

  /** `GET /extended`, every other time revalidating the previous answer's ETag. */
  async status(): Promise<StatusAnswer['chain_tip'] | undefined> {
    const conditional = this.lastStatusEtag !== null && this.random() < 0.5 ? this.lastStatusEtag : null;
    const headers: Record<string, string> = conditional ? { 'If-None-Match': conditional, 'Cache-Control': 'max-age=0' } : {};
    const a = await this.get<StatusAnswer>('/extended', '/extended', { headers });
    if (!a || !this.expectChainHeaders('/extended', a)) return undefined;
    if (a.status === 304) {
      if (!conditional || a.etag !== conditional)
        this.violation(`GET /extended: 304 with ETag ${a.etag} for If-None-Match ${conditional}`);
      this.settle('GET /extended 304', () => null, a.etag);
      return undefined;
    }
    if (conditional && a.etag === conditional)
      this.violation(`GET /extended: 200 although its ETag ${a.etag} matches If-None-Match`);
    this.lastStatusEtag = a.etag;
    const tip = a.body.chain_tip;
    const matched = this.settle(
      `GET /extended (tip ${tip ? `${tip.block_height} ${short(tip.index_block_hash)}` : 'null'})`,
      (s) => {
        if (!s.tip) return tip === null ? null : 'chain_tip should be null';
        if (!tip) return 'chain_tip is null';
        const expected: Record<string, unknown> = {
          block_height: s.tip.height,
          block_hash: s.tip.hash,
          index_block_hash: s.tip.indexHash,
          burn_block_height: s.tip.burnHeight,
          microblock_hash: s.micro?.hash,
          microblock_sequence: s.micro?.sequence,
        };
        return (
          diff(tip, expected) ??
          diff(a.body, {
            pox_v1_unlock_height: s.tip.pox[0],
            pox_v2_unlock_height: s.tip.pox[1],
            pox_v3_unlock_height: s.tip.pox[2],
          })
        );
      },
      a.etag,
    );
    if (tip && matched.length) {
      const last = this.tipHeights[this.tipHeights.length - 1];
      if (last !== tip.block_height) this.tipHeights.push(tip.block_height);
      if (last !== undefined && tip.block_height < last) {
        // The model's tip never goes down in these fixtures (each reorg brings a higher block), and a poller's reads
        // never go back: a lower tip is an answer from an older snapshot.
        this.violation(`GET /extended: chain_tip.block_height went down from ${last} to ${tip.block_height}`);
      }
    }
    return tip;
  }

  /** `GET /extended/v2/blocks/{height_or_hash}`; returns the block answered (200) or null. */
  async block(ref: number | string): Promise<BlockAnswer | null> {
    const path = `/extended/v2/blocks/${ref}`;
    const a = await this.get<BlockAnswer>('/extended/v2/blocks/{height_or_hash}', path, { allow404: true });
    if (!a) return null;
    const pick = (s: ChainState) => (typeof ref === 'number' ? s.byHeight.get(ref) : canonicalByHash(s, ref));
    if (a.status === 404) {
      // A block that is not (or no longer, or not yet) canonical: the api serves canonical blocks only.
      this.settle(`GET ${path} 404`, (s) => {
        const b = pick(s);
        return b ? `block ${b.height} ${short(b.indexHash)} is canonical` : null;
      });
      return null;
    }
    if (!this.expectChainHeaders(path, a)) return null;
    if (a.status === 304) return null;
    const matched = this.settle(
      `GET ${path} (block ${a.body.height} ${short(a.body.index_block_hash)})`,
      (s) => blockMismatch(a.body, pick(s), 'block'),
      a.etag,
    );
    return matched.length ? a.body : null;
  }

  /** `GET /extended/v2/blocks?limit&offset[&cursor]`; returns the answer's `prev_cursor` (the older page). */
  async blockList(limit: number, offset: number, cursor?: string): Promise<string | null> {
    const path = `/extended/v2/blocks?limit=${limit}&offset=${offset}${cursor ? `&cursor=${cursor}` : ''}`;
    const a = await this.get<BlockListAnswer>('/extended/v2/blocks', path, { allow404: cursor !== undefined });
    if (!a) return null;
    if (a.status === 404) {
      this.settle(`GET ${path} 404`, (s) =>
        expectedBlockList(s, limit, offset, cursor) === null ? null : 'the cursor is canonical',
      );
      return null;
    }
    if (!this.expectChainHeaders(path, a) || a.status === 304) return null;
    // What holds whatever the state: one chain, linked, newest first, canonical, within the total. The link is the
    // index block hash (what fork choice follows); `parent_block_hash` is the payload's own, checked against the model
    // below: the mainnet fixture's block 1 names the epoch-3 genesis as parent by index block hash, but not by its
    // block hash (0x00…, a recording of another node), so a block-hash link is no invariant across the two fixtures.
    const r = a.body.results;
    const intrinsic: string[] = [];
    r.forEach((b, i) => {
      if (!b.canonical) intrinsic.push(`non-canonical block ${b.height} ${short(b.index_block_hash)} listed`);
      const next = r[i + 1];
      if (next && (next.height !== b.height - 1 || b.parent_index_block_hash !== next.index_block_hash)) {
        intrinsic.push(
          `block ${b.height} ${short(b.index_block_hash)} (parent ${short(b.parent_index_block_hash)}) is followed by ${next.height} ${short(next.index_block_hash)}`,
        );
      }
    });
    if (r.length > limit || a.body.total < r.length) intrinsic.push(`${r.length} results, limit ${limit}, total ${a.body.total}`);
    if (intrinsic.length) this.violation(`GET ${path}: ${intrinsic.join('; ')}`);
    this.settle(
      `GET ${path} (first ${r[0] ? `${r[0].height} ${short(r[0].index_block_hash)}` : 'none'}, total ${a.body.total})`,
      (s) => {
        const e = expectedBlockList(s, limit, offset, cursor);
        if (!e) return 'should be 404';
        const head = diff(a.body, { total: e.total, cursor: e.cursor, next_cursor: e.next_cursor, prev_cursor: e.prev_cursor });
        if (head) return head;
        if (r.length !== e.results.length) return `${r.length} results (expected ${e.results.length})`;
        for (let i = 0; i < r.length; i++) {
          const m = blockMismatch(r[i]!, e.results[i], `results[${i}]`);
          if (m) return m;
        }
        return null;
      },
      a.etag,
    );
    return a.body.prev_cursor;
  }

  /** `GET /extended/v1/tx/{tx_id}`; returns the answer's block hash and height when it says mined, else null. */
  async tx(txId: string): Promise<{ block_hash: string; block_height: number } | null> {
    const path = `/extended/v1/tx/${txId}`;
    const a = await this.get<TxAnswer>('/extended/v1/tx/{tx_id}', path, { allow404: true });
    if (!a) return null;
    const notMined = (s: ChainState) => {
      const m = s.minedIn.get(txId);
      return m ? `mined in canonical block ${m.block.height} ${short(m.block.indexHash)}` : null;
    };
    if (a.status === 404) {
      this.settle(`GET ${path} 404`, notMined);
      return null;
    }
    if (a.body.block_hash === undefined) {
      // The mempool's view: only for a transaction no canonical block mines (in the answer's snapshot).
      if (a.etag !== null || a.cacheControl !== 'no-store')
        this.violation(`GET ${path}: mempool answer with ETag ${a.etag}, Cache-Control ${a.cacheControl}`);
      this.settle(`GET ${path} (${a.body.tx_status})`, notMined);
      return null;
    }
    if (!this.expectChainHeaders(path, a)) return null;
    const matched = this.settle(
      `GET ${path} (mined in ${a.body.block_height} ${short(a.body.block_hash)})`,
      (s) => txMismatch(a.body, s, txId),
      a.etag,
    );
    return matched.length ? { block_hash: a.body.block_hash, block_height: a.body.block_height! } : null;
  }

  /**
   * Pages through a principal's history (`limit`, offsets 0, limit, 2·limit, … at most `maxPages`). Each page is checked
   * against its own snapshot (and recorded for the exact check once the rows are known); pages that name the same
   * snapshot must also fit together: no transaction twice, still newest first, and all of them add up to `total`.
   */
  async history(principal: string, limit: number, maxPages: number): Promise<void> {
    type Key = [number, number, number];
    const keyOf = (r: TxAnswer): Key => [r.block_height ?? -1, r.microblock_sequence ?? -1, r.tx_index ?? -1];
    const newer = (x: Key, y: Key) => x[0] > y[0] || (x[0] === y[0] && (x[1] > y[1] || (x[1] === y[1] && x[2] > y[2])));
    let previous: { etag: string; ids: Set<string>; last: Key | undefined; count: number; total: number } | undefined;
    let sameSnapshot = true;
    let covered = 0;
    for (let page = 0, offset = 0; page < maxPages; page++, offset += limit) {
      const path = `/extended/v1/address/${principal}/transactions?limit=${limit}&offset=${offset}`;
      const a = await this.get<TxListAnswer>('/extended/v1/address/{principal}/transactions', path);
      if (!a || !this.expectChainHeaders(path, a) || a.status === 304) return;
      const { total, results } = a.body;
      const problems: string[] = [];
      const expectedLength = Math.max(0, Math.min(limit, total - offset));
      if (results.length !== expectedLength) problems.push(`${results.length} results for total ${total} at offset ${offset}`);
      const ids = new Set(results.map((r) => r.tx_id));
      if (ids.size !== results.length) problems.push('a transaction twice on one page');
      results.forEach((r, i) => {
        if (r.canonical !== true) problems.push(`${short(r.tx_id)} not canonical`);
        if (i > 0 && !newer(keyOf(results[i - 1]!), keyOf(r))) problems.push(`not newest first at ${i}`);
      });
      if (previous && previous.etag === a.etag) {
        if (results.some((r) => previous!.ids.has(r.tx_id)))
          problems.push('a transaction of the previous page (same snapshot) again');
        if (previous.last && results[0] && !newer(previous.last, keyOf(results[0])))
          problems.push('the page does not continue the previous one');
        if (previous.total !== total)
          problems.push(`total ${total}, the previous page of the same snapshot said ${previous.total}`);
      } else if (previous) {
        sameSnapshot = false;
      }
      if (problems.length) this.violation(`GET ${path}: ${problems.join('; ')}`);
      const matched = this.settle(
        `GET ${path} (total ${total})`,
        (s) => {
          for (const r of results) {
            const b = s.byHeight.get(r.block_height ?? -1);
            if (!b || b.hash !== r.block_hash)
              return `${short(r.tx_id)} at ${r.block_height} ${short(r.block_hash ?? '')}: not the canonical block there`;
            const m = s.minedIn.get(r.tx_id);
            if (!m || m.block !== b) return `${short(r.tx_id)} is not mined in block ${b.height}`;
            if (m.tx.txIndex !== r.tx_index || m.tx.microblockSequence !== r.microblock_sequence)
              return `${short(r.tx_id)} position`;
          }
          return null;
        },
        a.etag,
      );
      if (matched.length) {
        this.run.addressRecords.push({
          poller: this.name,
          principal,
          limit,
          offset,
          total,
          results: results.map((r) => ({
            tx_id: r.tx_id,
            block_height: r.block_height!,
            microblock_sequence: r.microblock_sequence!,
            tx_index: r.tx_index!,
          })),
          states: matched,
        });
      }
      covered += results.length;
      previous = {
        etag: a.etag!,
        ids,
        last: results.length ? keyOf(results[results.length - 1]!) : undefined,
        count: results.length,
        total,
      };
      if (offset + limit >= total) {
        if (sameSnapshot && covered !== total)
          this.violation(`history of ${principal}: ${covered} results over pages of one snapshot, total ${total}`);
        return;
      }
    }
  }
}

// --- the pollers' loops ----------------------------------------------------------------------------------------

const allBlocks = [...model.blocks.values()];
const MAX_HEIGHT = Math.max(...allBlocks.map((b) => b.height));

async function pollTip(p: Poller): Promise<void> {
  while (!p.run.stopped) {
    const tip = await p.status();
    // The tip just named must be served by hash (both of its hashes) — unless a later state orphaned it, when 404.
    if (tip) {
      for (const hash of [tip.index_block_hash, tip.block_hash]) {
        const b = await p.block(hash);
        if (b && b.index_block_hash !== tip.index_block_hash)
          p.violation(`GET /extended/v2/blocks/${hash}: block ${short(b.index_block_hash)}, not the tip`);
      }
    }
  }
}

async function pollBlockList(p: Poller): Promise<void> {
  while (!p.run.stopped) {
    const limit = p.random() < 0.4 ? BLOCK_LIMIT_MAX : p.int(1, BLOCK_LIMIT_MAX);
    const offset = p.random() < 0.6 ? 0 : p.int(0, 50);
    const older = await p.blockList(limit, offset);
    // The older page through its cursor (the cursor block may have been orphaned meanwhile: 404).
    if (older && !p.run.stopped) await p.blockList(limit, 0, older);
  }
}

async function pollBlocks(p: Poller): Promise<void> {
  while (!p.run.stopped) {
    const byHeight = p.random() < 0.5;
    // Mostly near the newest tip possible now (where reorgs rewrite), or a block of the streaming phase.
    const top = model.states[p.run.ub()]!.tip?.height ?? 0;
    const height = p.random() < 0.6 ? p.int(Math.max(0, top - 12), top + 2) : p.int(0, MAX_HEIGHT + 2);
    const phaseBlocks = allBlocks.filter((b) => b.fixture === p.run.phase);
    const target = p.pick(phaseBlocks.length && p.random() < 0.75 ? phaseBlocks : allBlocks);
    const ref = byHeight ? height : p.random() < 0.5 ? target.indexHash : target.hash;
    const b = await p.block(ref);
    if (!b || p.random() < 0.5) continue;
    // Its transactions, each fetched on its own (each answer from its own snapshot): while the block stays canonical,
    // each says it is mined there, and they are `tx_count` many.
    const modelled = model.blocks.get(b.index_block_hash);
    if (!modelled) {
      p.violation(`block ${short(b.index_block_hash)} is no block of the fixtures`);
      continue;
    }
    const lbBefore = p.lb;
    let inBlock = 0;
    for (const t of modelled.txs) {
      const mined = await p.tx(t.txId);
      if (mined && mined.block_hash === b.hash && mined.block_height === b.height) inBlock += 1;
    }
    let stayedCanonical = true;
    for (let n = lbBefore; n <= p.run.ub(); n++)
      if (model.states[n]!.byHeight.get(b.height) !== modelled) stayedCanonical = false;
    if (stayedCanonical && inBlock !== b.tx_count) {
      p.violation(
        `block ${b.height} ${short(b.index_block_hash)}: tx_count ${b.tx_count}, ${inBlock} of its transactions answer mined in it`,
      );
    }
  }
}

async function pollTxs(p: Poller): Promise<void> {
  while (!p.run.stopped) await p.tx(p.pickFocused('txIds'));
}

async function pollHistory(p: Poller): Promise<void> {
  while (!p.run.stopped) await p.history(p.pickFocused('principals'), p.pick([3, 7, 20, 50]), 4);
}

const LOOPS: Record<(typeof POLLERS)[number], (p: Poller) => Promise<void>> = {
  tip: pollTip,
  'block-list': pollBlockList,
  'block-list-2': pollBlockList,
  block: pollBlocks,
  tx: pollTxs,
  address: pollHistory,
};

/** The whole read surface once, every answer required to be the given state's exactly (lb = ub = that state). */
async function sweep(run: Run, at: number): Promise<Poller> {
  const p = new Poller(run, 'final', at);
  const s = model.states[at]!;
  expectMessage('the final state is the state after the last event', () => expect(run.ub()).toBe(at));
  await p.status();
  for (let offset = 0; offset < s.count + BLOCK_LIMIT_MAX; offset += BLOCK_LIMIT_MAX) await p.blockList(BLOCK_LIMIT_MAX, offset);
  for (let h = 0; h <= MAX_HEIGHT + 1; h++) await p.block(h);
  for (const b of allBlocks) {
    await p.block(b.indexHash);
    await p.block(b.hash);
  }
  for (const txId of model.txIds) await p.tx(txId);
  for (const principal of model.principals) await p.history(principal, 50, 100);
  return p;
}

/**
 * The address histories the api showed, against their definition (what `address_txs` must hold for the canonical
 * blocks: fixture-replay.test.ts), evaluated per block over every stored block, canonical or not, and restricted to
 * the blocks of the state the answer named.
 */
async function checkHistories(sys: TestSystem, run: Run): Promise<string[]> {
  const principals = model.principals;
  const rows = (
    await sys.db.raw(
      `SELECT p.address, tx.block_height, coalesce(tx.microblock_sequence, ${ANCHORED}) AS microblock_sequence, tx.tx_index, tx.tx_id, tx.index_block_hash
       FROM txs tx,
            LATERAL (VALUES (tx.sender_address), (tx.sponsor_address), (tx.payload->>'recipient_address'), (tx.contract_id)) p(address)
       WHERE p.address = ANY(?)
       UNION
       SELECT p.address, tx.block_height, coalesce(tx.microblock_sequence, ${ANCHORED}), tx.tx_index, tx.tx_id, tx.index_block_hash
       FROM events e JOIN txs tx ON tx.tx_id = e.tx_id AND tx.index_block_hash = e.index_block_hash,
            LATERAL (VALUES (e.sender), (e.recipient)) p(address)
       WHERE e.committed AND tx.status = 'success' AND p.address = ANY(?)
         AND e.type IN ('stx_transfer_event', 'stx_mint_event', 'stx_burn_event')`,
      [principals, principals],
    )
  ).rows as Array<{
    address: string;
    block_height: number;
    microblock_sequence: number;
    tx_index: number;
    tx_id: string;
    index_block_hash: string;
  }>;
  const byPrincipal = new Map<string, typeof rows>();
  for (const r of rows) byPrincipal.set(r.address, [...(byPrincipal.get(r.address) ?? []), r]);
  for (const list of byPrincipal.values()) {
    list.sort(
      (x, y) => y.block_height - x.block_height || y.microblock_sequence - x.microblock_sequence || y.tx_index - x.tx_index,
    );
  }
  const failures: string[] = [];
  for (const rec of run.addressRecords) {
    const explained = rec.states.some((n) => {
      const s = model.states[n]!;
      const expected = (byPrincipal.get(rec.principal) ?? [])
        .filter((r) => s.byHeight.get(r.block_height)?.indexHash === r.index_block_hash)
        .map((r) => ({
          tx_id: r.tx_id,
          block_height: r.block_height,
          microblock_sequence: r.microblock_sequence,
          tx_index: r.tx_index,
        }));
      return (
        expected.length === rec.total &&
        JSON.stringify(expected.slice(rec.offset, rec.offset + rec.limit)) === JSON.stringify(rec.results)
      );
    });
    if (!explained) {
      const s = model.states[rec.states[0]!]!;
      const expectedTotal = (byPrincipal.get(rec.principal) ?? []).filter(
        (r) => s.byHeight.get(r.block_height)?.indexHash === r.index_block_hash,
      ).length;
      failures.push(
        `[${rec.poller}] history of ${rec.principal} (limit ${rec.limit}, offset ${rec.offset}) in ${s.label}: total ${rec.total} (expected ${expectedTotal}), ` +
          `results ${rec.results.map((r) => `${r.block_height}/${r.tx_index}`).join(' ')}`,
      );
    }
  }
  return failures;
}

function summary(run: Run, pollers: Poller[]): string {
  return pollers
    .map((p) => {
      const statuses = [...p.statuses].map(([s, n]) => `${s}×${n}`).join(' ');
      return `${p.name.padEnd(12)} ${String(p.answers).padStart(5)} answers (${statuses}); ${p.seen.length} states seen${
        p.tipHeights.length ? `; tips ${p.tipHeights.join(',')}` : ''
      }`;
    })
    .concat(`seed ${run.seed}; ${run.addressRecords.length} history pages recorded`)
    .join('\n');
}

// ---------------------------------------------------------------------------------------------------------------

/**
 * The same reads against each door: the api itself, and the gateway as deployed with Redis, where the indexer fences
 * every commit and the gateway answers repeats from the answers it keeps (ADR 0048). Through the gateway every answer
 * must still be one of a state in the window: a kept answer is never older than the database when the request
 * arrived. Rate limits are off there (the pollers are one client asking as fast as they can).
 */
function readsWhileIndexing(door: 'api' | 'gateway'): void {
  let sys: TestSystem;
  let run: Run;
  let adminPort = 0;

  beforeAll(async () => {
    const gateway = door === 'gateway';
    if (gateway) adminPort = (await freePorts(1))[0]!;
    sys = await TestSystem.start({
      bus: 'kafka',
      serverUrl: testInfra().databaseUrl,
      kafkaBrokers: testInfra().kafkaBrokers,
      services: gateway ? ['indexer', 'observer', 'api', 'gateway'] : ['indexer', 'observer', 'api'],
      env: gateway
        ? {
            REDIS_URL: testInfra().redisUrl,
            ANSWER_FENCE_PREFIX: `bda:fence:e2e${randomBytes(4).toString('hex')}:`,
            RATE_LIMIT_ENABLED: 'false',
            GATEWAY_ADMIN_PORT: String(adminPort),
          }
        : {},
    });
    run = new Run(gateway ? sys.gatewayUrl : sys.apiUrl, Number(process.env.READS_SEED ?? Date.now() % 1_000_000));
  });
  afterAll(() => sys?.stop());

  /** Reads the gateway answered from what it kept, so far (its metric). */
  const keptAnswersServed = async (): Promise<number> => {
    const text = await (await fetch(`http://127.0.0.1:${adminPort}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith('gateway_answer_cache_total{') && l.includes('result="hit"'));
    return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
  };

  /** The model's state once a phase is applied. */
  const endOf = (phase: string) => {
    const first = model.start.get(phase)!;
    const n = model.events.filter((e) => e.id.startsWith(`${phase}:`)).length;
    return model.states[model.stateAfter[first + n - 1]!]!;
  };

  /**
   * Streams one phase through the observer (paced) while the pollers run, waits until the indexer applied all of it,
   * stops the pollers, and then sweeps every read of the state the api settled on. Returns the streaming pollers.
   */
  async function streamWhilePolling(phase: string): Promise<Poller[]> {
    const mark = await deadLetterMark(sys);
    const first = model.start.get(phase)!;
    const events = model.events.filter((e) => e.id.startsWith(`${phase}:`));
    run.violations = [];
    run.addressRecords = [];
    run.focus = model.focus.get(phase)!;
    run.phase = phase;
    // Every state up to the one before this phase's first event was committed (the previous phase caught up).
    const lb0 = first === 0 ? 0 : model.stateAfter[first - 1]!;
    run.stopped = false;
    run.accepted = first;
    run.replaying = true;
    const pollers = POLLERS.map((name) => new Poller(run, name, lb0));
    const loops = pollers.map((p) => LOOPS[p.name as (typeof POLLERS)[number]](p));
    async function* paced() {
      for (const e of events) {
        yield { ...e, id: e.id.slice(phase.length + 1) };
        if (e.path === '/new_block' || e.path === '/new_microblocks') await new Promise((r) => setTimeout(r, PACE_MS));
      }
    }
    try {
      await replayEvents(paced(), {
        observerUrl: sys.observerUrl,
        maxRetryMs: 30_000,
        onProgress: () => {
          run.accepted += 1;
        },
      });
      run.replaying = false;
      await sys.waitForCaughtUp();
    } finally {
      run.replaying = false;
      run.stopped = true;
      await Promise.all(loops);
    }
    await expectNoDeadLetterSince(sys, mark);
    const final = await sweep(run, endOf(phase).no);
    // What each poller saw, and the seed that repeats the run (`READS_SEED`): in every failure message, and printed
    // with READS_VERBOSE=1.
    const report = `${phase}:\n${summary(run, [...pollers, final])}`;
    if (process.env.READS_VERBOSE) console.log(report);
    // Every answer, while streaming and in the final sweep, was one of a state the chain went through.
    expectMessage(`${run.violations.length} inconsistent answers\n${report}`, () =>
      expect(run.violations.slice(0, 40)).toEqual([]),
    );
    await expectMessage(`address histories against their definition\n${report}`, async () =>
      expect(await checkHistories(sys, run)).toEqual([]),
    );
    // Enough answers for the test to mean something.
    const total = pollers.reduce((n, p) => n + p.answers, 0);
    expectMessage(`answers checked while the events streamed in\n${report}`, () => expect(total).toBeGreaterThan(200));
    for (const p of pollers) expectMessage(`answers of poller ${p.name}\n${report}`, () => expect(p.answers).toBeGreaterThan(10));
    return pollers;
  }

  /** The states the pollers' answers named. */
  const seenStates = (pollers: Poller[]) => new Set(pollers.flatMap((p) => p.seen));

  it('answers every poll consistently while a reorg streams in (mainnet-reorg-scenario1)', async () => {
    const pollers = await streamWhilePolling(MAINNET);
    expectMessage('distinct chain states the answers came from', () =>
      expect(seenStates(pollers).size).toBeGreaterThanOrEqual(10),
    );

    // The end state is the fixtures README's: tip 47 0x4f6d…, and 3 of the 50 blocks non-canonical (404 by both hashes).
    const expected = EXPECTED_TIPS[MAINNET]!;
    const end = endOf(MAINNET);
    expectMessage('the model ends at the README tip', () =>
      expect({ height: end.tip?.height, indexBlockHash: end.tip?.indexHash }).toEqual(expected),
    );
    const status = (await (await fetch(`${sys.apiUrl}/extended`)).json()) as StatusAnswer;
    expect(status.chain_tip).toMatchObject({ block_height: expected.height, index_block_hash: expected.indexBlockHash });
    const mainnetBlocks = allBlocks.filter((b) => b.fixture === MAINNET);
    const orphans = mainnetBlocks.filter((b) => end.byHeight.get(b.height) !== b);
    expect(mainnetBlocks.length).toBe(50);
    expect(orphans.map((b) => b.height)).toEqual([30, 45, 47]);
    for (const b of orphans) {
      for (const hash of [b.indexHash, b.hash]) {
        await expectMessage(`orphaned block ${hash}`, async () =>
          expect((await fetch(`${sys.apiUrl}/extended/v2/blocks/${hash}`)).status).toBe(404),
        );
      }
    }
  }, 120_000);

  it('answers every poll consistently while a 47-block reorg replaces the chain (epoch-3-transition on top)', async () => {
    const pollers = await streamWhilePolling(EPOCH3);
    // The pollers saw the chain on both sides of the 47-block reorg.
    const seen = [...seenStates(pollers)].map((n) => model.states[n]!);
    expectMessage('a state with the mainnet tip seen', () => expect(seen.some((s) => s.tip?.fixture === MAINNET)).toBe(true));
    expectMessage('a state with an epoch-3 tip seen', () => expect(seen.some((s) => s.tip?.fixture === EPOCH3)).toBe(true));

    const expected = EXPECTED_TIPS[EPOCH3]!;
    const end = endOf(EPOCH3);
    expectMessage('the model ends at the README tip', () =>
      expect({ height: end.tip?.height, indexBlockHash: end.tip?.indexHash }).toEqual(expected),
    );
    expectMessage('heights 0–50', () => expect(end.count).toBe(51));
    const status = (await (await fetch(`${sys.apiUrl}/extended`)).json()) as StatusAnswer;
    expect(status.chain_tip).toMatchObject({ block_height: expected.height, index_block_hash: expected.indexBlockHash });
    const list = (await (await fetch(`${sys.apiUrl}/extended/v2/blocks?limit=1`)).json()) as BlockListAnswer;
    expect(list.total).toBe(51);
    // Every mainnet block is orphaned now.
    for (const b of allBlocks.filter((x) => x.fixture === MAINNET)) {
      await expectMessage(`orphaned block ${b.height} ${b.indexHash}`, async () =>
        expect((await fetch(`${sys.apiUrl}/extended/v2/blocks/${b.indexHash}`)).status).toBe(404),
      );
    }
  }, 120_000);

  it('answers every poll consistently while two branches keep overtaking each other', async () => {
    const pollers = await streamWhilePolling(FLIP);
    // The pollers saw many of the reorgs: states whose chain no longer holds the previous state's tip.
    const reorgs = [...seenStates(pollers)].filter((n) => {
      const before = model.states[n - 1]?.tip;
      return before && model.states[n]!.byHeight.get(before.height) !== before;
    });
    expectMessage('reorg states the answers came from', () => expect(reorgs.length).toBeGreaterThanOrEqual(5));

    // The branch that overtook last holds the chain from the epoch-3 tip up; the other one's blocks are 404.
    const end = endOf(FLIP);
    expect(end.tip?.height).toBe(EXPECTED_TIPS[EPOCH3]!.height + FLIP_ROUNDS);
    const status = (await (await fetch(`${sys.apiUrl}/extended`)).json()) as StatusAnswer;
    expect(status.chain_tip).toMatchObject({ block_height: end.tip!.height, index_block_hash: end.tip!.indexHash });
    const made = allBlocks.filter((b) => b.fixture === FLIP);
    expect(made.filter((b) => end.byHeight.get(b.height) === b).length).toBe(FLIP_ROUNDS);
    for (const b of made.filter((x) => end.byHeight.get(x.height) !== x)) {
      await expectMessage(`orphaned block ${b.height} ${b.indexHash}`, async () =>
        expect((await fetch(`${sys.apiUrl}/extended/v2/blocks/${b.indexHash}`)).status).toBe(404),
      );
    }
    // Through the gateway, many of the answers checked were kept ones: the test held the answer fence to the window.
    if (door === 'gateway') expect(await keptAnswersServed()).toBeGreaterThan(100);
  }, 120_000);
}

describe('reads while the indexer writes (kafka bus), from the api', () => readsWhileIndexing('api'));

describe('reads while the indexer writes (kafka bus), through the gateway keeping answers', () => readsWhileIndexing('gateway'));
