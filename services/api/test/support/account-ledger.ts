/**
 * Balances computed from a fixture's raw node events, for the accounts tests: written from the node-event format
 * (reference/node-events.md), independently of the indexer. The canonical chain is the fixture's tip (its
 * PROVENANCE.md) and its ancestors; a block counts once, as first received.
 */
import { addressFromVersionHash, addressToString, AuthType, deserializeTransaction } from '@stacks/transactions';
import { loadRecordedEvents } from './replayed-database';
import { FIXTURE_TIPS } from './rosetta-system';

interface RawEvent {
  txid: string;
  event_index: number;
  committed?: boolean;
  type: string;
  [body: string]: unknown;
}

interface RawBlock {
  index_block_hash: string;
  parent_index_block_hash: string;
  block_height: number;
  burn_block_height: number;
  transactions: Array<{ txid: string; raw_tx: string; status: string }>;
  events: RawEvent[];
  matured_miner_rewards?: Array<{
    recipient: string;
    coinbase_amount: string;
    tx_fees_anchored: string;
    tx_fees_streamed_confirmed: string;
    tx_fees_streamed_produced: string;
  }>;
}

interface StxTotals {
  balance: bigint;
  sent: bigint;
  received: bigint;
  fees: bigint;
  rewards: bigint;
}

interface LedgerBlock {
  height: number;
  burnHeight: number;
  indexBlockHash: string;
}

export interface AccountLedger {
  /** The canonical blocks, lowest first. */
  canonical: LedgerBlock[];
  /** Every principal any block of the fixture names (canonical or not). */
  principals: Set<string>;
  /** STX totals of a principal after the canonical block at `height` (the tip when omitted). */
  stxAt(principal: string, height?: number): StxTotals;
  /** Balances by asset (`ft`: base units; `nft`: values held) after the canonical block at `height`. */
  tokensAt(principal: string, kind: 'ft' | 'nft', height?: number): Map<string, bigint>;
  /**
   * What the principal sent (transfers, burns) and received (transfers, mints) of each asset after the canonical block
   * at `height` (the tip when omitted), in units (`nft`: values).
   */
  tokenFlowsAt(principal: string, kind: 'ft' | 'nft', height?: number): Map<string, { sent: bigint; received: bigint }>;
  /** The newest lock event of the principal up to the tip: amount and unlock burn height. */
  lockAt(principal: string): { amount: bigint; unlock: number } | null;
  /** The highest nonce the principal used (origin, or sponsor of a sponsored transaction) up to `height`; null: none. */
  nonceAt(principal: string, height?: number): bigint | null;
}

/** The address of a spending condition (hash mode 0, P2PKH, is a single-signature address: SP/ST; others SM/SN). */
function addressOf(cond: { hashMode: number; signer: string }, mainnet: boolean): string {
  const single = cond.hashMode === 0;
  const version = mainnet ? (single ? 22 : 20) : single ? 26 : 21;
  return addressToString(addressFromVersionHash(version, cond.signer));
}

/** Who used which nonce in a raw transaction: its origin, and its sponsor when sponsored. */
function noncesOf(rawTx: string): Array<{ address: string; nonce: bigint }> {
  if (rawTx === '0x00') return [];
  const tx = deserializeTransaction(rawTx.replace(/^0x/, ''));
  const mainnet = tx.transactionVersion === 0;
  const out = [{ address: addressOf(tx.auth.spendingCondition, mainnet), nonce: BigInt(tx.auth.spendingCondition.nonce) }];
  if (tx.auth.authType === AuthType.Sponsored) {
    const s = tx.auth.sponsorSpendingCondition;
    out.push({ address: addressOf(s, mainnet), nonce: BigInt(s.nonce) });
  }
  return out;
}

/** The fee payer of a raw transaction (the sponsor of a sponsored one) and its fee; null for a burnchain operation. */
function feeOf(rawTx: string): { payer: string; fee: bigint } | null {
  if (rawTx === '0x00') return null;
  const tx = deserializeTransaction(rawTx.replace(/^0x/, ''));
  const cond = tx.auth.authType === AuthType.Sponsored ? tx.auth.sponsorSpendingCondition : tx.auth.spendingCondition;
  return { payer: addressOf(cond, tx.transactionVersion === 0), fee: BigInt(cond.fee) };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * Canonical tips of fixtures the Rosetta support does not list, from their PROVENANCE.md (the out-of-order microblock
 * fixture has one block: its tip).
 */
const MORE_TIPS: Record<string, string> = {
  'fuzzed-transactions-1.tsv': '0x3a027883a1952955c5836fa0048383bf7a6492519d1dc9c28eb54e4e4c109a35',
};

export function accountLedger(file: string): AccountLedger {
  const all = loadRecordedEvents(file)
    .filter((e) => e.path === '/new_block')
    .map((e) => JSON.parse(e.body) as RawBlock);
  const byHash = new Map<string, RawBlock>();
  for (const b of all) if (!byHash.has(b.index_block_hash)) byHash.set(b.index_block_hash, b);
  const tip = FIXTURE_TIPS[file]?.indexBlockHash ?? MORE_TIPS[file] ?? (byHash.size === 1 ? [...byHash.keys()][0]! : undefined);
  if (tip === undefined) throw new Error(`no canonical tip known for ${file}`);
  const chain: RawBlock[] = [];
  for (let b = byHash.get(tip); b; b = byHash.get(b.parent_index_block_hash)) chain.unshift(b);

  const principals = new Set<string>();
  const add = (p: string | undefined) => {
    if (p) principals.add(p);
  };
  for (const b of byHash.values()) {
    for (const t of b.transactions) add(feeOf(t.raw_tx)?.payer);
    for (const e of b.events) {
      const body = (e[e.type] ?? {}) as Record<string, unknown>;
      add(str(body['sender']));
      add(str(body['recipient']));
      add(str(body['locked_address']));
    }
    for (const r of b.matured_miner_rewards ?? []) add(r.recipient);
  }

  // Per canonical block: the STX changes and token changes of each principal.
  const stxSteps: Array<Map<string, StxTotals>> = [];
  const tokenSteps: Array<Map<string, bigint>> = [];
  const tokenFlowSteps: Array<Map<string, { sent: bigint; received: bigint }>> = [];
  const locks = new Map<string, { amount: bigint; unlock: number }>();
  for (const b of chain) {
    const stx = new Map<string, StxTotals>();
    const bump = (p: string, k: keyof StxTotals, v: bigint) => {
      const t = stx.get(p) ?? { balance: 0n, sent: 0n, received: 0n, fees: 0n, rewards: 0n };
      t[k] += v;
      stx.set(p, t);
    };
    const tokens = new Map<string, bigint>();
    const tokenFlows = new Map<string, { sent: bigint; received: bigint }>();
    const tok = (p: string, kind: string, asset: string, v: bigint) => {
      const key = `${p}\u0000${kind}\u0000${asset}`;
      tokens.set(key, (tokens.get(key) ?? 0n) + v);
      const flow = tokenFlows.get(key) ?? { sent: 0n, received: 0n };
      if (v < 0n) flow.sent -= v;
      else flow.received += v;
      tokenFlows.set(key, flow);
    };
    const status = new Map(b.transactions.map((t) => [t.txid, t.status]));
    for (const t of b.transactions) {
      const f = feeOf(t.raw_tx);
      if (f && f.fee > 0n) {
        bump(f.payer, 'fees', f.fee);
        bump(f.payer, 'balance', -f.fee);
      }
    }
    for (const e of b.events) {
      if (e.committed === false || (status.get(e.txid) ?? 'success') !== 'success') continue;
      const body = (e[e.type] ?? {}) as Record<string, unknown>;
      const sender = str(body['sender']);
      const recipient = str(body['recipient']);
      const amount = BigInt(str(body['amount']) ?? '0');
      const asset = str(body['asset_identifier']) ?? '';
      switch (e.type) {
        case 'stx_transfer_event':
        case 'stx_mint_event':
        case 'stx_burn_event':
          if (sender && e.type !== 'stx_mint_event') {
            bump(sender, 'sent', amount);
            bump(sender, 'balance', -amount);
          }
          if (recipient && e.type !== 'stx_burn_event') {
            bump(recipient, 'received', amount);
            bump(recipient, 'balance', amount);
          }
          break;
        case 'stx_lock_event':
          locks.set(str(body['locked_address'])!, {
            amount: BigInt(str(body['locked_amount'])!),
            unlock: Number(body['unlock_height']),
          });
          break;
        case 'ft_transfer_event':
        case 'ft_mint_event':
        case 'ft_burn_event':
          if (sender && e.type !== 'ft_mint_event') tok(sender, 'ft', asset, -amount);
          if (recipient && e.type !== 'ft_burn_event') tok(recipient, 'ft', asset, amount);
          break;
        case 'nft_transfer_event':
        case 'nft_mint_event':
        case 'nft_burn_event':
          if (sender && e.type !== 'nft_mint_event') tok(sender, 'nft', asset, -1n);
          if (recipient && e.type !== 'nft_burn_event') tok(recipient, 'nft', asset, 1n);
          break;
      }
    }
    for (const r of b.matured_miner_rewards ?? []) {
      const v =
        BigInt(r.coinbase_amount) +
        BigInt(r.tx_fees_anchored) +
        BigInt(r.tx_fees_streamed_confirmed) +
        BigInt(r.tx_fees_streamed_produced);
      bump(r.recipient, 'rewards', v);
      bump(r.recipient, 'balance', v);
    }
    stxSteps.push(stx);
    tokenSteps.push(tokens);
    tokenFlowSteps.push(tokenFlows);
  }
  // Decoded once: a test asks for many principals and heights, and a slow gap between its requests would outlast the
  // server's keep-alive.
  const blockNonces = chain.map((b) => b.transactions.flatMap((t) => noncesOf(t.raw_tx)));
  const tipHeight = chain.at(-1)!.block_height;
  const upTo = (height: number) => chain.filter((b) => b.block_height <= height).length;
  return {
    canonical: chain.map((b) => ({
      height: b.block_height,
      burnHeight: b.burn_block_height,
      indexBlockHash: b.index_block_hash,
    })),
    principals,
    stxAt(principal, height = tipHeight) {
      const sum: StxTotals = { balance: 0n, sent: 0n, received: 0n, fees: 0n, rewards: 0n };
      for (const step of stxSteps.slice(0, upTo(height))) {
        const t = step.get(principal);
        if (!t) continue;
        for (const k of Object.keys(sum) as Array<keyof StxTotals>) sum[k] += t[k];
      }
      return sum;
    },
    tokensAt(principal, kind, height = tipHeight) {
      const out = new Map<string, bigint>();
      const prefix = `${principal}\u0000${kind}\u0000`;
      for (const step of tokenSteps.slice(0, upTo(height))) {
        for (const [key, v] of step)
          if (key.startsWith(prefix)) out.set(key.slice(prefix.length), (out.get(key.slice(prefix.length)) ?? 0n) + v);
      }
      return out;
    },
    tokenFlowsAt(principal, kind, height = tipHeight) {
      const out = new Map<string, { sent: bigint; received: bigint }>();
      const prefix = `${principal}\u0000${kind}\u0000`;
      for (const step of tokenFlowSteps.slice(0, upTo(height))) {
        for (const [key, f] of step) {
          if (!key.startsWith(prefix)) continue;
          const sum = out.get(key.slice(prefix.length)) ?? { sent: 0n, received: 0n };
          out.set(key.slice(prefix.length), { sent: sum.sent + f.sent, received: sum.received + f.received });
        }
      }
      return out;
    },
    lockAt(principal) {
      return locks.get(principal) ?? null;
    },
    nonceAt(principal, height = tipHeight) {
      let max: bigint | null = null;
      for (const used of blockNonces.slice(0, upTo(height))) {
        for (const n of used) if (n.address === principal && (max === null || n.nonce > max)) max = n.nonce;
      }
      return max;
    },
  };
}
