import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { LiveAnnouncement } from './live-announcements';
import type { RestReader } from './rest-reader';
import {
  getBlockAddressTxs,
  getBlockNftEvents,
  getBlockTxs,
  getTxFee,
  getTxStxEvents,
  type DbLiveNftEvent,
} from './datastore/live-queries';
import { toAddressTransactionUpdate, toNftEventResponse, type NftEventResponse } from './mappers/live-payloads';

/** One message for the subscribers of one topic, in the form each protocol sends it. */
export interface Publication {
  /** The normalized topic key (`LiveTopic.key`). */
  key: string;
  /** socket.io: the arguments after the event name (the event name is the topic as the client spelled it). */
  socketIoArgs: unknown[];
  /** JSON-RPC: the notification's method and params (the reference API's). */
  rpcMethod: string;
  rpcParams: unknown;
}

/** A protocol's sockets: the hub hands it the publications of topics it reported subscribers for. */
export interface LiveChannel {
  publish(pub: Publication): void;
}

/**
 * Turns the indexer's announcements into messages for the topics that have subscribers on this replica (ADR 0025).
 * Announcements are handled one at a time in arrival order (the indexer's commit order), so blocks go out in the order
 * they became canonical. Each payload is read once per replica and topic (`RestReader`: the REST endpoint's answer at
 * that moment), and only when some socket here subscribed to it. A block the REST API no longer finds canonical (a
 * reorg came before the api read it) is not sent.
 */
export class LiveHub {
  private readonly channels: LiveChannel[] = [];
  /** Subscriptions per topic key, over every socket of every channel of this replica. */
  private readonly counts = new Map<string, number>();
  private nftTopics = 0;
  private chain: Promise<void> = Promise.resolve();
  private pending = 0;
  /** The highest block announced so far (what a reconnected listener catches up from). */
  lastBlockHeight: number | null = null;

  constructor(private readonly deps: { db: Knex; rest: RestReader; logger: Logger }) {}

  addChannel(channel: LiveChannel): void {
    this.channels.push(channel);
  }

  /** Announcements queued and not handled yet. */
  get backlog(): number {
    return this.pending;
  }

  /** Queues an announcement; resolves once it (and everything before it) is handled. */
  enqueue(a: LiveAnnouncement): Promise<void> {
    this.pending++;
    this.chain = this.chain
      .then(() => this.handle(a))
      .catch((err: unknown) => this.deps.logger.error({ err, announcement: a }, 'live update failed'))
      .finally(() => this.pending--);
    return this.chain;
  }

  /** A socket subscribed to `key` (channels call this once per socket and topic). */
  subscribed(key: string): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    if (key.startsWith('nft-')) this.nftTopics++;
  }

  /** A socket left `key` (unsubscribed, or closed). */
  unsubscribed(key: string): void {
    const n = (this.counts.get(key) ?? 0) - 1;
    if (n > 0) this.counts.set(key, n);
    else this.counts.delete(key);
    if (key.startsWith('nft-')) this.nftTopics--;
  }

  /** Subscriptions held on this replica (every socket, every topic). */
  get subscriptionCount(): number {
    let n = 0;
    for (const v of this.counts.values()) n += v;
    return n;
  }

  private has(key: string): boolean {
    return this.counts.has(key);
  }

  private publish(pub: Publication): void {
    for (const c of this.channels) c.publish(pub);
  }

  private async handle(a: LiveAnnouncement): Promise<void> {
    if (a.type === 'block') {
      if (this.lastBlockHeight === null || a.block_height > this.lastBlockHeight) this.lastBlockHeight = a.block_height;
      await this.block(a.index_block_hash, a.block_height);
    } else if (a.type === 'microblock') {
      if (!this.has('microblock')) return;
      const micro = await this.deps.rest(`/extended/v1/microblock/${a.microblock_hash}`);
      if (micro.status === 200) {
        this.publish({ key: 'microblock', socketIoArgs: [micro.body], rpcMethod: 'microblock', rpcParams: micro.body });
      }
    } else {
      for (const txId of a.tx_ids) await this.tx(txId, a.type === 'mempool');
    }
  }

  private async block(indexBlockHash: string, height: number): Promise<void> {
    const { rest, db } = this.deps;
    // The v1 block, as the reference API sends it (the client's `Block` type), read by height: the answer is this block
    // only while it is canonical. Orphaned since it was announced: never sent as new (the new branch's blocks are
    // announced in turn).
    const block = await rest(`/extended/v1/block/by_height/${height}`);
    if (block.status !== 200 || (block.body as { index_block_hash?: string }).index_block_hash !== indexBlockHash) return;
    if (this.has('block')) this.publish({ key: 'block', socketIoArgs: [block.body], rpcMethod: 'block', rpcParams: block.body });

    for (const { tx_id } of await getBlockTxs(db, indexBlockHash)) {
      if (this.has(`transaction:${tx_id}`)) await this.tx(tx_id, false);
    }

    const addressTxs = await getBlockAddressTxs(db, indexBlockHash);
    const balancesSent = new Set<string>();
    for (const { address, tx_id } of addressTxs) {
      const txKey = `address-transaction:${address}`;
      if (this.has(txKey)) {
        const tx = await rest(`/extended/v1/tx/${tx_id}`);
        if (tx.status === 200) {
          const update = toAddressTransactionUpdate(
            tx.body as Record<string, unknown>,
            address,
            await getTxStxEvents(db, indexBlockHash, tx_id, address),
            await getTxFee(db, indexBlockHash, tx_id),
          );
          const t = tx.body as { tx_id: string; tx_status: string; tx_type: string };
          this.publish({
            key: txKey,
            socketIoArgs: [address, update],
            rpcMethod: 'address_tx_update',
            rpcParams: { address, tx_id: t.tx_id, tx_status: t.tx_status, tx_type: t.tx_type, ...update },
          });
        }
      }
      const balanceKey = `address-stx-balance:${address}`;
      if (!balancesSent.has(address) && this.has(balanceKey)) {
        balancesSent.add(address);
        const balance = await rest(`/extended/v1/address/${address}/stx`);
        if (balance.status === 200) {
          this.publish({
            key: balanceKey,
            socketIoArgs: [address, balance.body],
            rpcMethod: 'address_balance_update',
            rpcParams: { address, ...(balance.body as object) },
          });
        }
      }
    }

    if (this.nftTopics > 0) {
      for (const row of await getBlockNftEvents(db, indexBlockHash)) this.nft(row);
    }
  }

  private nft(row: DbLiveNftEvent): void {
    const event: NftEventResponse = toNftEventResponse(row);
    if (this.has('nft-event'))
      this.publish({ key: 'nft-event', socketIoArgs: [event], rpcMethod: 'nft_event', rpcParams: event });
    const assetKey = `nft-asset-event:${row.asset_identifier}+${row.value_hex}`;
    if (this.has(assetKey)) {
      this.publish({
        key: assetKey,
        socketIoArgs: [row.asset_identifier, row.value_hex, event],
        rpcMethod: 'nft_asset_event',
        rpcParams: event,
      });
    }
    const collectionKey = `nft-collection-event:${row.asset_identifier}`;
    if (this.has(collectionKey)) {
      this.publish({
        key: collectionKey,
        socketIoArgs: [row.asset_identifier, event],
        rpcMethod: 'nft_collection_event',
        rpcParams: event,
      });
    }
  }

  /** A transaction's current REST answer to `transaction:{id}`, and to `mempool` when it entered the mempool. */
  private async tx(txId: string, entered: boolean): Promise<void> {
    const key = `transaction:${txId}`;
    const toMempool = entered && this.has('mempool');
    if (!toMempool && !this.has(key)) return;
    const tx = await this.deps.rest(`/extended/v1/tx/${txId}`);
    if (tx.status !== 200) return;
    const body = tx.body as { tx_status?: string };
    if (toMempool && body.tx_status === 'pending') {
      this.publish({ key: 'mempool', socketIoArgs: [tx.body], rpcMethod: 'mempool', rpcParams: tx.body });
    }
    if (this.has(key)) this.publish({ key, socketIoArgs: [tx.body], rpcMethod: 'tx_update', rpcParams: tx.body });
  }
}
