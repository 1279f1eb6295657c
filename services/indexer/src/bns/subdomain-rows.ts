import type { DbBnsName, DbBnsSubdomain } from '@bda/db';
import { parseSubdomainRecords, zonefileResolver } from './zonefile-records';

/** The subdomain rows a name change carries: one per subdomain record of the zonefile it set. */
export function subdomainRows(change: DbBnsName, zonefile: string): DbBnsSubdomain[] {
  const resolver = zonefileResolver(zonefile);
  return parseSubdomainRecords(zonefile).map((r) => ({
    fqn: `${r.label}.${change.fqn}`,
    name: change.fqn,
    namespace_id: change.namespace_id,
    owner: r.owner,
    seqn: r.seqn.toString(),
    zonefile_hash: r.zonefileHash,
    zonefile: r.zonefile,
    parent_zonefile_hash: change.zonefile_hash,
    parent_zonefile_index: r.index,
    resolver,
    tx_id: change.tx_id,
    block_height: change.block_height,
    tx_index: change.tx_index,
    index_block_hash: change.index_block_hash,
  }));
}
