import type { GetRoute } from '../../plain-routes';
import { ReadRoutes } from '../../read-routes';
import type { Knex } from 'knex';
import { InputError } from '@bda/common';
import type { DbTxRow } from '../../chain/datastore/txs';
import { toTransactionResponse } from '../../chain/mappers/tx';
import { clarityValueView } from '../../codec';
import { echo, parsePage, parsePrincipal, queryBoolean, queryString } from '../../params';
import { getNftHistory, getNftHoldings, getNftMints, getTokenHolders, type DbNftItemWithTx } from '../datastore/tokens';
import type { ContractAbis } from '../../chain/datastore/contract-abis';
import { markDeprecated } from '../../deprecated';

/** Page sizes of the token lists, as the reference API's (`limit` 0–200, 50 when absent or 0). */
const TOKEN_LIMITS = { default: 50, max: 200 };
/** Page sizes of a token's holders, as the reference API's (`limit` 0–200, 100 when absent or 0). */
const HOLDER_LIMITS = { default: 100, max: 200 };

/** `<contract principal>::<asset name>`: a token class. */
const ASSET_IDENTIFIER = /^[A-Z0-9]{28,41}\.[a-zA-Z]([a-zA-Z0-9]|[-_]){0,127}::[a-zA-Z0-9\-_!?+<>=/*]{1,128}$/;

function assetIdentifier(raw: string, name: string): string {
  if (!ASSET_IDENTIFIER.test(raw)) {
    throw new InputError(`${name}: ${echo(raw)} is not a token class identifier (<contract principal>::<asset name>)`);
  }
  return raw;
}

/** `asset_identifiers`: repeated, or comma-separated, or both; each a token class. */
function assetIdentifiers(query: Record<string, unknown>): string[] | null {
  const raw = query['asset_identifiers'];
  if (raw === undefined) return null;
  const parts = (Array.isArray(raw) ? raw : [raw]).map((v) => {
    if (typeof v !== 'string') throw new InputError('query parameter asset_identifiers: must be strings');
    return v;
  });
  const ids = parts.flatMap((p) => p.split(','));
  if (ids.length > 200) throw new InputError('query parameter asset_identifiers: at most 200 token classes');
  return ids.map((id) => assetIdentifier(id, 'query parameter asset_identifiers'));
}

/** `asset_identifier` checked when given (undefined when absent: the caller names it once the others are checked). */
function givenAsset(query: Record<string, unknown>): string | undefined {
  const raw = queryString(query, 'asset_identifier');
  return raw === undefined ? undefined : assetIdentifier(raw, 'query parameter asset_identifier');
}

/** `tx_id`, or the whole transaction with `tx_metadata=true`. */
function txPart(item: DbNftItemWithTx, abis: ContractAbis, withTx: boolean) {
  return withTx ? { tx: toTransactionResponse(item as unknown as DbTxRow, [], abis) } : { tx_id: item.p_tx_id };
}

const ACTIONS: Record<string, string> = { nft_transfer_event: 'transfer', nft_mint_event: 'mint', nft_burn_event: 'burn' };

/**
 * The token lists: `/extended/v1/tokens/nft/holdings` (the NFT values a principal holds, deprecated by the reference
 * API), `/nft/history` (the events of one NFT value), `/nft/mints` (the mints of one class) and `/ft/{token}/holders`
 * (every holder of a fungible token, or of STX, largest first).
 */
export function tokenRoutes(db: Knex): GetRoute[] {
  const router = new ReadRoutes();

  router.get('/extended/v1/tokens/nft/holdings', async (req, res) => {
    // Every parameter given is checked before a missing one is named: the first error names a parameter sent.
    const raw = queryString(req.query, 'principal');
    const principal = raw === undefined ? undefined : parsePrincipal(raw, 'query parameter principal');
    const assets = assetIdentifiers(req.query);
    const page = parsePage(req.query, TOKEN_LIMITS, { zeroMeansDefault: true });
    const withTx = queryBoolean(req.query, 'tx_metadata');
    if (principal === undefined) throw new InputError('query parameter principal: required (the holder)');
    const { total, rows, abis } = await getNftHoldings(db, principal, page, assets);
    markDeprecated(res);
    res.json({
      ...page,
      total,
      results: rows.map((r) => ({
        asset_identifier: r.p_asset_identifier,
        value: clarityValueView(r.p_value_hex),
        block_height: r.p_block_height,
        ...txPart(r, abis, withTx),
      })),
    });
  });

  router.get('/extended/v1/tokens/nft/history', async (req, res) => {
    const asset = givenAsset(req.query);
    const rawValue = queryString(req.query, 'value');
    if (rawValue !== undefined && !/^(0x)?([0-9a-fA-F]{2}){1,4096}$/.test(rawValue)) {
      throw new InputError(`query parameter value: ${echo(rawValue)} is not a Clarity value in hex`);
    }
    const page = parsePage(req.query, TOKEN_LIMITS, { zeroMeansDefault: true });
    queryBoolean(req.query, 'unanchored');
    const withTx = queryBoolean(req.query, 'tx_metadata');
    if (asset === undefined) throw new InputError('query parameter asset_identifier: required (the NFT class)');
    if (rawValue === undefined) throw new InputError('query parameter value: required (the NFT value, Clarity hex)');
    const value = `0x${rawValue.replace(/^0x/, '').toLowerCase()}`;
    const { total, rows, abis } = await getNftHistory(db, asset, value, page);
    res.json({
      ...page,
      total,
      results: rows.map((r) => ({
        sender: r.p_sender,
        ...(r.p_recipient === null ? {} : { recipient: r.p_recipient }),
        event_index: r.p_event_index,
        asset_event_type: ACTIONS[r.p_type] ?? r.p_type,
        ...txPart(r, abis, withTx),
      })),
    });
  });

  router.get('/extended/v1/tokens/nft/mints', async (req, res) => {
    const asset = givenAsset(req.query);
    const page = parsePage(req.query, TOKEN_LIMITS, { zeroMeansDefault: true });
    queryBoolean(req.query, 'unanchored');
    const withTx = queryBoolean(req.query, 'tx_metadata');
    if (asset === undefined) throw new InputError('query parameter asset_identifier: required (the NFT class)');
    const { total, rows, abis } = await getNftMints(db, asset, page);
    res.json({
      ...page,
      total,
      results: rows.map((r) => ({
        ...(r.p_recipient === null ? {} : { recipient: r.p_recipient }),
        event_index: r.p_event_index,
        value: clarityValueView(r.p_value_hex),
        ...txPart(r, abis, withTx),
      })),
    });
  });

  router.get('/extended/v1/tokens/ft/:token/holders', async (req, res) => {
    const token = req.params.token === 'stx' ? 'stx' : assetIdentifier(req.params.token, 'token');
    const page = parsePage(req.query, HOLDER_LIMITS, { zeroMeansDefault: true });
    const { total, supply, holders } = await getTokenHolders(db, token, page);
    res.json({
      ...page,
      total,
      total_supply: supply,
      results: holders.map((h) => ({ address: h.principal, balance: h.balance })),
    });
  });

  return router.routes;
}
