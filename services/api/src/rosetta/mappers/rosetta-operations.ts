import type {
  DbPoxUnlockHeights,
  DbRosettaBlock,
  DbRosettaLock,
  DbRosettaMinerReward,
  DbRosettaStxEvent,
  DbRosettaTx,
} from '../datastore/rosetta-block';
import type { DbRosettaMempoolTx } from '../datastore/rosetta-mempool';
import {
  STACKED_SUB_ACCOUNT,
  STX,
  type AccountIdentifier,
  type BlockResponse,
  type OperationResponse,
  type OperationType,
  type TransactionResponse,
} from './rosetta-types';

/**
 * Rosetta operations of Stacks blocks. Every change of an account's spendable or locked STX is an operation with
 * status `success`, so that the balances `/account/balance` reports (computed from the same rows, see
 * `datastore/rosetta-balance.ts`) reconcile with the sum of operations:
 * - `fee`: the fee of every mined transaction, charged to its payer (the sponsor when sponsored) whatever the
 *   transaction's outcome;
 * - committed STX events: transfers (`token_transfer`, a debit and a credit), mints (`mint`, genesis allocations
 *   included), burns (`burn`), locks (`stx_lock`: the newly locked amount moves from the account to its `stacked`
 *   sub-account; a lock that replaces a still-effective one moves only the difference);
 * - block-level changes (a pseudo-transaction identified by the block's hash, first in the block): genesis allocations
 *   no node event records (`mint`, genesis block only, see `datastore/rosetta-genesis-balances.ts`), matured miner
 *   rewards (`miner_reward`) and locks expiring at the block's burn height (`stx_unlock`, back from `stacked`).
 * A transaction's own operation (its type, status from its result, sender in metadata) carries no account and no
 * amount, except a failed
 * token transfer, shown with its intended amounts and its abort status (not applied).
 */

const SUCCESS = 'success';

function account(address: string, sub?: string): AccountIdentifier {
  return sub ? { address, sub_account: { address: sub } } : { address };
}

function negate(amount: string): string {
  return amount.startsWith('-') ? amount.slice(1) : amount === '0' ? '0' : `-${amount}`;
}

function amount(value: string): OperationResponse['amount'] {
  return { value, currency: STX };
}

/** Collects operations with their indexes 0..n-1. */
class Ops {
  readonly list: OperationResponse[] = [];

  add(op: Omit<OperationResponse, 'operation_identifier'>, relatedTo?: number): number {
    const index = this.list.length;
    this.list.push({
      operation_identifier: { index },
      ...(relatedTo !== undefined ? { related_operations: [{ index: relatedTo }] } : {}),
      ...op,
    });
    return index;
  }

  /** A debit of `from` and the matching credit of `to`, related. */
  pair(
    type: OperationType,
    status: string | undefined,
    from: AccountIdentifier,
    to: AccountIdentifier,
    value: string,
    metadata?: Record<string, unknown>,
  ): void {
    const st = status === undefined ? {} : { status };
    const debit = this.add({ type, ...st, account: from, amount: amount(negate(value)), ...(metadata ? { metadata } : {}) });
    this.add({ type, ...st, account: to, amount: amount(value), ...(metadata ? { metadata } : {}) }, debit);
  }
}

/** Which PoX contract version made a lock: 1 for `pox` (or a 2.0 event naming none), 2, 3, or 0 for later ones. */
function poxVersion(contract: string | null): number {
  if (contract === null) return 1;
  const name = contract.slice(contract.indexOf('.') + 1);
  if (name === 'pox') return 1;
  if (name === 'pox-2') return 2;
  if (name === 'pox-3') return 3;
  return 0;
}

/**
 * The micro-STX a lock keeps locked at burn height `burnHeight` under the unlock heights a block carries: its amount
 * until its unlock height, and nothing once its PoX contract version has been retired (`pox_vN_unlock_height`).
 */
export function effectiveLock(lock: DbRosettaLock | null, burnHeight: number, pox: DbPoxUnlockHeights): bigint {
  if (!lock) return 0n;
  if (BigInt(lock.unlock_height) <= BigInt(burnHeight)) return 0n;
  const v = poxVersion(lock.contract_identifier);
  const retiredAt =
    v === 1 ? pox.pox_v1_unlock_height : v === 2 ? pox.pox_v2_unlock_height : v === 3 ? pox.pox_v3_unlock_height : null;
  if (retiredAt !== null && burnHeight >= retiredAt) return 0n;
  return BigInt(lock.locked_amount);
}

function txOwnOperation(
  ops: Ops,
  tx: { type_id: string; sender_address: string; contract_id: string | null; payload: Record<string, unknown> },
  status: string | undefined,
): void {
  const type = (['contract_call', 'smart_contract', 'coinbase', 'poison_microblock', 'tenure_change'] as const).find(
    (t) => t === tx.type_id,
  );
  // No `account`: the operation moves no STX (its STX moves are the fee and event operations). An account without an
  // amount also trips clients that read `amount.currency` of every operation with an account.
  const metadata: Record<string, unknown> = { sender: tx.sender_address };
  if (tx.contract_id) metadata['contract_id'] = tx.contract_id;
  if (typeof tx.payload['function_name'] === 'string') metadata['function_name'] = tx.payload['function_name'];
  ops.add({ type: type ?? 'contract_call', ...(status === undefined ? {} : { status }), metadata });
}

function eventOperations(ops: Ops, e: DbRosettaStxEvent, burnHeight: number, pox: DbPoxUnlockHeights): void {
  switch (e.type) {
    case 'stx_transfer_event':
      ops.pair(
        'token_transfer',
        SUCCESS,
        account(e.sender!),
        account(e.recipient!),
        e.amount!,
        e.memo ? { memo: e.memo } : undefined,
      );
      return;
    case 'stx_mint_event':
      ops.add({ type: 'mint', status: SUCCESS, account: account(e.recipient!), amount: amount(e.amount!) });
      return;
    case 'stx_burn_event':
      ops.add({ type: 'burn', status: SUCCESS, account: account(e.sender!), amount: amount(negate(e.amount!)) });
      return;
    case 'stx_lock_event': {
      const before = effectiveLock(e.prev_lock, burnHeight, pox);
      const delta = BigInt(e.locked_amount!) - before;
      const metadata = {
        locked_amount: e.locked_amount!,
        unlock_burn_height: e.unlock_height!,
        ...(e.contract_identifier ? { contract: e.contract_identifier } : {}),
      };
      ops.pair(
        'stx_lock',
        SUCCESS,
        account(e.locked_address!),
        account(e.locked_address!, STACKED_SUB_ACCOUNT),
        delta.toString(),
        metadata,
      );
      return;
    }
  }
}

function txOperations(
  tx: DbRosettaTx,
  events: DbRosettaStxEvent[],
  burnHeight: number,
  pox: DbPoxUnlockHeights,
): OperationResponse[] {
  const ops = new Ops();
  if (tx.fee_rate !== '0') {
    const payer = tx.sponsored && tx.sponsor_address ? tx.sponsor_address : tx.sender_address;
    ops.add({ type: 'fee', status: SUCCESS, account: account(payer), amount: amount(negate(tx.fee_rate)) });
  }
  if (tx.type_id === 'token_transfer') {
    // A successful transfer's balance change is its committed STX transfer event (below); a failed one is shown
    // with its intended amounts and its abort status.
    if (tx.status !== SUCCESS) {
      const recipient = String(tx.payload['recipient_address'] ?? '');
      const value = String(tx.payload['amount'] ?? '0');
      if (recipient) ops.pair('token_transfer', tx.status, account(tx.sender_address), account(recipient), value);
    }
  } else {
    txOwnOperation(ops, tx, tx.status);
  }
  for (const e of events) eventOperations(ops, e, burnHeight, pox);
  return ops.list;
}

function blockLevelOperations(
  block: DbRosettaBlock,
  rewards: DbRosettaMinerReward[],
  genesisBalances: ReadonlyMap<string, bigint>,
): OperationResponse[] {
  const ops = new Ops();
  if (block.block_height === block.genesis_block_height) {
    for (const [address, value] of genesisBalances) {
      ops.add({
        type: 'mint',
        status: SUCCESS,
        account: account(address),
        amount: amount(value.toString()),
        metadata: { genesis_allocation: true },
      });
    }
  }
  for (const r of rewards) {
    ops.add({ type: 'miner_reward', status: SUCCESS, account: account(r.recipient), amount: amount(r.amount) });
  }
  if (block.parent_burn_block_height !== null) {
    for (const lock of block.expiring_locks) {
      const released =
        effectiveLock(lock, block.parent_burn_block_height, block) - effectiveLock(lock, block.burn_block_height, block);
      if (released > 0n) {
        ops.pair(
          'stx_unlock',
          SUCCESS,
          account(lock.locked_address, STACKED_SUB_ACCOUNT),
          account(lock.locked_address),
          released.toString(),
          {
            unlock_burn_height: lock.unlock_height,
          },
        );
      }
    }
  }
  return ops.list;
}

/** Milliseconds: the Nakamoto block time when there is one, else the burn block's time. */
export function blockTimestampMs(block: { block_time: string | null; burn_block_time: string }): number {
  return Number(block.block_time ?? block.burn_block_time) * 1000;
}

/** The Rosetta transactions of a block: its block-level pseudo-transaction (when it has operations) first. */
export function toRosettaTransactions(
  block: DbRosettaBlock,
  genesisBalances: ReadonlyMap<string, bigint>,
): TransactionResponse[] {
  const out: TransactionResponse[] = [];
  const blockOps = blockLevelOperations(block, block.rewards, genesisBalances);
  if (blockOps.length > 0) {
    out.push({
      transaction_identifier: { hash: block.index_block_hash },
      operations: blockOps,
      metadata: { block_level: true },
    });
  }
  const byTx = new Map<string, DbRosettaStxEvent[]>();
  for (const e of block.events) {
    const list = byTx.get(e.tx_id);
    if (list) list.push(e);
    else byTx.set(e.tx_id, [e]);
  }
  for (const tx of block.txs) {
    out.push({
      transaction_identifier: { hash: tx.tx_id },
      operations: txOperations(tx, byTx.get(tx.tx_id) ?? [], block.burn_block_height, block),
      metadata: {
        type: tx.type_id,
        status: tx.status,
        nonce: tx.nonce,
        sender: tx.sender_address,
        ...(tx.sponsored ? { sponsor: tx.sponsor_address } : {}),
      },
    });
  }
  return out;
}

export function toRosettaBlock(block: DbRosettaBlock, genesisBalances: ReadonlyMap<string, bigint>): BlockResponse {
  const isGenesis = block.block_height === block.genesis_block_height;
  const id = { index: block.block_height, hash: block.index_block_hash };
  return {
    block_identifier: id,
    // The genesis block is its own parent (Rosetta's convention: its parent is not served).
    parent_block_identifier: isGenesis ? id : { index: block.block_height - 1, hash: block.parent_index_block_hash },
    timestamp: blockTimestampMs(block),
    transactions: toRosettaTransactions(block, genesisBalances),
    metadata: { burn_block_height: block.burn_block_height },
  };
}

/** A pending transaction's operations: its fee and intent, without status (not on chain yet). */
export function toRosettaMempoolTransaction(tx: DbRosettaMempoolTx): TransactionResponse {
  const ops = new Ops();
  if (tx.fee_rate !== '0') {
    ops.add({ type: 'fee', account: account(tx.sponsor_address ?? tx.sender_address), amount: amount(negate(tx.fee_rate)) });
  }
  if (tx.type_id === 'token_transfer') {
    ops.pair(
      'token_transfer',
      undefined,
      account(tx.sender_address),
      account(String(tx.payload['recipient_address'])),
      String(tx.payload['amount']),
    );
  } else {
    txOwnOperation(ops, tx, undefined);
  }
  return {
    transaction_identifier: { hash: tx.tx_id },
    operations: ops.list,
    metadata: { type: tx.type_id, nonce: tx.nonce, sender: tx.sender_address },
  };
}
