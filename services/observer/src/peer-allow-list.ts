import { BlockList, isIP } from 'node:net';

/** What `OBSERVER_ALLOWED_CIDRS` allows when the observer listens on loopback and the variable is empty. */
const LOOPBACK_CIDRS = '127.0.0.0/8,::1/128';

/** Which peers may POST events: the addresses of the Stacks nodes (and of whatever posts Bitcoin blocks). */
export interface PeerAllowList {
  allows(address: string | undefined): boolean;
  /** The CIDRs as given, normalised (`10.0.0.0/8, ::1/128`), for the start-up log and error messages. */
  readonly text: string;
}

/**
 * Parses a comma-separated list of IPv4 and IPv6 CIDRs (`10.0.0.0/8,fd00::/8`; a bare address is a /32 or /128).
 * IPv4 peers seen by a dual-stack socket (`::ffff:10.1.2.3`) match the IPv4 entries. Throws on an entry that is not a
 * CIDR, naming it.
 */
export function parsePeerAllowList(cidrs: string): PeerAllowList {
  const list = new BlockList();
  const entries: string[] = [];
  for (const raw of cidrs.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const slash = entry.indexOf('/');
    const address = slash === -1 ? entry : entry.slice(0, slash);
    const version = isIP(address);
    if (version === 0) throw new Error(`not an IPv4 or IPv6 CIDR: ${JSON.stringify(entry)} (e.g. 10.0.0.0/8, fd00::/8)`);
    const max = version === 4 ? 32 : 128;
    const prefixText = slash === -1 ? String(max) : entry.slice(slash + 1);
    const prefix = Number(prefixText);
    if (!/^\d{1,3}$/.test(prefixText) || prefix > max) {
      throw new Error(`not an IPv${version} CIDR: ${JSON.stringify(entry)} (the prefix length is 0 to ${max})`);
    }
    list.addSubnet(address, prefix, version === 4 ? 'ipv4' : 'ipv6');
    entries.push(`${address}/${prefix}`);
  }
  if (entries.length === 0) throw new Error('the allow-list is empty: no peer could post');
  return {
    text: entries.join(', '),
    allows(peer) {
      if (!peer) return false;
      const version = isIP(peer);
      return version !== 0 && list.check(peer, version === 4 ? 'ipv4' : 'ipv6');
    },
  };
}

/** Whether `host` (a listen address) accepts connections from this machine only. */
function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || parsePeerAllowList(LOOPBACK_CIDRS).allows(host);
}

/**
 * Who may post events (ADR 0019): `cidrs` (OBSERVER_ALLOWED_CIDRS), or loopback when the observer listens on loopback.
 * Bound to another interface without a list, it throws: the observer would take a chain from anyone who reaches it.
 */
export function allowedPeersFor(cidrs: string, host: string): PeerAllowList {
  if (cidrs.trim() !== '') return parsePeerAllowList(cidrs);
  if (isLoopbackHost(host)) return parsePeerAllowList(LOOPBACK_CIDRS);
  throw new Error(
    `OBSERVER_HOST is ${host} (not loopback) and OBSERVER_ALLOWED_CIDRS is empty: set it to the Stacks nodes' addresses ` +
      '(or 0.0.0.0/0,::/0 to allow everyone, when a firewall already does this job)',
  );
}
