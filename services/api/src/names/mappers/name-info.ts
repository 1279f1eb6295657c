import type { DbBnsSubdomain } from '@bda/db';
import type { DbBnsNameState } from '../datastore/bns-names';

/** `GET /v1/names/{name}`: a name's or subdomain's current state; fields without a value are left out. */
export interface BnsNameInfoResponse {
  address: string;
  blockchain: 'stacks';
  expire_block?: number;
  grace_period?: number;
  last_txid: string;
  resolver?: string;
  status: string;
  zonefile?: string;
  zonefile_hash: string;
}

/** Blocks after the lease's end during which only the owner can renew (`NAME_GRACE_PERIOD_DURATION`). */
const NAME_GRACE_PERIOD = 5000;

/**
 * A name's state: `expire_block` is the lease's last block (lease start + lifetime, computed by the indexer: ADR 0022)
 * and `grace_period` the last block the owner can still renew it (`expire_block + 5000`); both 0 for a namespace whose
 * names never expire. `status` is the name's last operation (`name-register`, `name-transfer`, `name-revoke`, …).
 * `zonefile_hash` is 40 hex digits without `0x` (empty once cleared); `zonefile` is there when the zonefile has arrived.
 */
export function toNameInfoResponse(row: DbBnsNameState): BnsNameInfoResponse {
  const expire = Number(row.expire_block);
  const body: BnsNameInfoResponse = {
    address: row.address,
    blockchain: 'stacks',
    expire_block: expire,
    grace_period: expire === 0 ? 0 : expire + NAME_GRACE_PERIOD,
    last_txid: row.tx_id,
    status: row.status,
    zonefile_hash: row.zonefile_hash,
  };
  if (row.zonefile !== null && row.zonefile_hash !== '') body.zonefile = row.zonefile;
  return body;
}

/** A subdomain's state: its current record's owner and zonefile; `last_txid` the parent change that carried it. */
export function toSubdomainInfoResponse(row: DbBnsSubdomain): BnsNameInfoResponse {
  const body: BnsNameInfoResponse = {
    address: row.owner,
    blockchain: 'stacks',
    last_txid: row.tx_id,
    status: 'registered_subdomain',
    zonefile: row.zonefile,
    zonefile_hash: row.zonefile_hash,
  };
  if (row.resolver) body.resolver = row.resolver;
  return body;
}
