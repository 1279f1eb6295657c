import { InputError } from '@bda/common';
import { parsePrincipal, parseTxId } from '../params';

/**
 * A live topic, as the reference API names them on socket.io (`block`, `transaction:{tx_id}`, …). `key` is the
 * normalized form subscriptions are matched on (a tx id in lower case with `0x`); `name` the client's own spelling,
 * which socket.io events are emitted under (the official client listens on the name it subscribed with).
 */
export type LiveTopic =
  | { kind: 'block' | 'microblock' | 'mempool' | 'nft-event'; key: string; name: string }
  | { kind: 'transaction'; txId: string; key: string; name: string }
  | { kind: 'address-transaction' | 'address-stx-balance'; principal: string; key: string; name: string }
  | { kind: 'nft-asset-event'; asset: string; value: string; key: string; name: string }
  | { kind: 'nft-collection-event'; asset: string; key: string; name: string };

/** `SP….contract::asset-name`: a contract principal, `::`, a Clarity name. */
const ASSET_ID = /^(.+)::([a-zA-Z]([a-zA-Z0-9]|[-_!?+<>=/*])*)$/;
const HEX_VALUE = /^0x([0-9a-fA-F]{2})+$/;

function parseAsset(raw: string, name: string): string {
  const m = ASSET_ID.exec(raw);
  if (!m || raw.length > 300 || !m[1]!.includes('.')) {
    throw new InputError(
      `${name}: must be an asset identifier (<contract principal>::<asset name>), got ${JSON.stringify(raw.slice(0, 80))}`,
    );
  }
  parsePrincipal(m[1]!, name);
  return raw;
}

/** Parses one socket.io topic; throws InputError naming it when it is not one. */
export function parseTopic(raw: unknown): LiveTopic {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 500) {
    throw new InputError(`topic: must be a topic name, got ${JSON.stringify(raw)?.slice(0, 80)}`);
  }
  switch (raw) {
    case 'block':
    case 'microblock':
    case 'mempool':
    case 'nft-event':
      return { kind: raw, key: raw, name: raw };
  }
  const colon = raw.indexOf(':');
  const prefix = colon === -1 ? raw : raw.slice(0, colon);
  const rest = colon === -1 ? '' : raw.slice(colon + 1);
  switch (prefix) {
    case 'transaction': {
      const txId = parseTxId(rest, raw);
      return { kind: 'transaction', txId, key: `transaction:${txId}`, name: raw };
    }
    case 'address-transaction':
    case 'address-stx-balance': {
      const principal = parsePrincipal(rest, raw);
      return { kind: prefix, principal, key: `${prefix}:${principal}`, name: raw };
    }
    case 'nft-asset-event': {
      const plus = rest.lastIndexOf('+');
      const value = plus === -1 ? '' : rest.slice(plus + 1).toLowerCase();
      if (!HEX_VALUE.test(value)) {
        throw new InputError(`${raw}: must be nft-asset-event:<asset identifier>+<0x-prefixed hex Clarity value>`);
      }
      const asset = parseAsset(rest.slice(0, plus), raw);
      return { kind: 'nft-asset-event', asset, value, key: `nft-asset-event:${asset}+${value}`, name: raw };
    }
    case 'nft-collection-event': {
      const asset = parseAsset(rest, raw);
      return { kind: 'nft-collection-event', asset, key: `nft-collection-event:${asset}`, name: raw };
    }
  }
  throw new InputError(`topic: unknown topic ${JSON.stringify(raw.slice(0, 80))}`);
}

/** The JSON-RPC `subscribe`/`unsubscribe` params of the reference API (`{event, tx_id | address | …}`) → a topic. */
export function topicOfRpcParams(params: unknown): LiveTopic {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    throw new InputError('params: subscription requests must be an object with an event name');
  }
  const p = params as Record<string, unknown>;
  const str = (name: string): string => {
    const v = p[name];
    if (typeof v !== 'string') throw new InputError(`params.${name}: required string`);
    return v;
  };
  switch (p['event']) {
    case 'block':
    case 'microblock':
    case 'mempool':
      return parseTopic(p['event']);
    case 'nft_event':
      return parseTopic('nft-event');
    case 'tx_update':
      return parseTopic(`transaction:${str('tx_id')}`);
    case 'address_tx_update':
      return parseTopic(`address-transaction:${str('address')}`);
    case 'address_balance_update':
      return parseTopic(`address-stx-balance:${str('address')}`);
    case 'nft_asset_event':
      return parseTopic(`nft-asset-event:${str('asset_identifier')}+${str('value')}`);
    case 'nft_collection_event':
      return parseTopic(`nft-collection-event:${str('asset_identifier')}`);
    default:
      throw new InputError('params.event: must be a valid event name');
  }
}

/** What the JSON-RPC `subscribe` answers for a topic (the reference API's results, which its client reads back). */
export function rpcSubscribeResult(topic: LiveTopic): Record<string, string> {
  switch (topic.kind) {
    case 'transaction':
      return { tx_id: topic.txId };
    case 'address-transaction':
    case 'address-stx-balance':
      return { address: topic.principal };
    case 'nft-asset-event':
      return { asset_identifier: topic.asset, value: topic.value };
    case 'nft-collection-event':
      return { asset_identifier: topic.asset };
    default:
      return {};
  }
}
