/**
 * `bns_address_names` (migration 094, ADR 0034): what `/v1/addresses/stacks/{address}` answers for an address, kept as
 * the JSON text of its `names` array, with the range of chain-tip heights over which that text stays true.
 *
 * An address's answer is its names that resolve at the tip (current owner, not revoked, lease not ended:
 * `expire_block = 0 OR expire_block >= tip`, as the contract's `name-resolve`) and the subdomains it owns, in byte
 * order. Only the tip moves that set without a write: a name drops out when the tip passes its `expire_block`, and
 * comes back when a reorg lowers the tip under it again. So each row says for which tips `h` it holds:
 * `valid_from <= h <= valid_until`, where `valid_until` is the lowest expiry among the names it lists (the tip may rise
 * to it) and `valid_from` one past the highest expiry among the names it leaves out as expired. The api serves the
 * text when the tip is in that range and computes the answer from the current-state tables otherwise, so a row is
 * never wrong, only, at worst, unused; the indexer recomputes the rows of the addresses a change touches, and the rows
 * whose range the tip has just left.
 */

/** `valid_until` of a row none of whose names can expire. */
export const ADDRESS_NAMES_NEVER = '9223372036854775807';

/**
 * An upsert of the rows of the addresses `source` yields (a SQL relation with an `address` column) as they are at
 * tip height `height` (a SQL expression of type bigint). A single statement without a WITH of its own, so the indexer
 * can send it inside a batch of data-modifying CTEs. Rows that would not change are left alone.
 */
export function upsertAddressNamesSql(source: string, height: string): string {
  const held = `FROM bns_names_current n WHERE n.address = a.address COLLATE "C" AND NOT n.revoked`;
  return `INSERT INTO bns_address_names AS c (address, names, valid_from, valid_until)
  SELECT a.address,
         array_to_json(ARRAY(
           SELECT n.fqn ${held} AND (n.expire_block = 0 OR n.expire_block >= (${height}))
           UNION ALL
           SELECT s.fqn FROM bns_subdomains_current s WHERE s.owner = a.address COLLATE "C"
           ORDER BY 1
         ))::text,
         coalesce((SELECT max(n.expire_block) + 1 ${held} AND n.expire_block <> 0 AND n.expire_block < (${height})), 0),
         coalesce((SELECT min(n.expire_block) ${held} AND n.expire_block <> 0 AND n.expire_block >= (${height})),
                  ${ADDRESS_NAMES_NEVER})
  FROM (SELECT DISTINCT address FROM (${source}) s0 WHERE address IS NOT NULL) a
  ON CONFLICT (address) DO UPDATE SET names = excluded.names, valid_from = excluded.valid_from, valid_until = excluded.valid_until
  WHERE (c.names, c.valid_from, c.valid_until) IS DISTINCT FROM (excluded.names, excluded.valid_from, excluded.valid_until)`;
}

/** Every address that holds a name (revoked or not) or a subdomain now: the rows a full rebuild writes. */
export const ADDRESSES_HOLDING_NAMES_SQL = `SELECT address FROM bns_names_current UNION SELECT owner FROM bns_subdomains_current`;

/** The addresses whose kept row does not hold at tip height `height` (two index ranges: ranges left below or above). */
export function addressNamesStaleAtSql(height: string): string {
  return `SELECT address FROM bns_address_names WHERE valid_until < (${height})
          UNION ALL SELECT address FROM bns_address_names WHERE valid_from > (${height})`;
}

/** The chain tip's height as the api reads it (0 before the first block). */
export const TIP_HEIGHT_SQL = `coalesce((SELECT block_height FROM chain_tip), 0)::bigint`;
