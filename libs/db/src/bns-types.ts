/** A row of `bns_namespaces` (migration 030): one canonical change of a namespace. */
export interface DbBnsNamespace {
  namespace_id: string;
  address: string;
  revealed_at: number;
  launched_at: number | null;
  /** bigint column: a decimal string as read. */
  lifetime: string;
  /** The 16 bucket exponents, `;`-separated. */
  buckets: string;
  base: string;
  coeff: string;
  nonalpha_discount: string;
  no_vowel_discount: string;
  can_update_price_function: boolean;
  status: string;
  tx_id: string;
  block_height: number;
  tx_index: number;
  event_index: number;
  index_block_hash: string;
}

/** A row of `bns_names` (migration 031): a name's whole state after one canonical change. */
export interface DbBnsName {
  fqn: string;
  name: string;
  namespace_id: string;
  address: string;
  /** hash160 hex without 0x; empty when cleared. */
  zonefile_hash: string;
  sets_zonefile: boolean;
  registered_at: number | null;
  imported_at: number | null;
  revoked: boolean;
  status: string;
  tx_id: string;
  block_height: number;
  tx_index: number;
  event_index: number;
  index_block_hash: string;
}

/** A row of `bns_subdomains` (migration 033): one subdomain record of a name's zonefile. */
export interface DbBnsSubdomain {
  fqn: string;
  name: string;
  namespace_id: string;
  owner: string;
  /** bigint column: a decimal string as read. */
  seqn: string;
  zonefile_hash: string;
  zonefile: string;
  parent_zonefile_hash: string;
  parent_zonefile_index: number;
  resolver: string | null;
  tx_id: string;
  block_height: number;
  tx_index: number;
  index_block_hash: string;
}
