import { BlockList, isIP } from 'node:net';

/**
 * Which `X-Forwarded-For` entries to believe: none (`hops: 0`), the last `hops` entries (one per proxy
 * we run in front of the gateway), or the entries added by proxies whose address is in `cidrs`.
 * Never "all": a client could otherwise pick its own address and reset its own counter.
 */
export type TrustProxy = { kind: 'hops'; hops: number } | { kind: 'cidrs'; list: BlockList; text: string };

export function parseTrustProxy(value: string): TrustProxy {
  const v = value.trim();
  if (/^\d+$/.test(v)) return { kind: 'hops', hops: Number(v) };
  const list = new BlockList();
  for (const raw of v.split(',')) {
    const entry = raw.trim();
    if (!entry) continue;
    const [addr, bits] = entry.split('/');
    const family = isIP(addr ?? '');
    if (!family) throw new Error(`entry "${entry}" is neither a hop count nor an IP or CIDR`);
    const max = family === 4 ? 32 : 128;
    const prefix = bits === undefined ? max : Number(bits);
    if (!Number.isInteger(prefix) || prefix < 0 || prefix > max) throw new Error(`entry "${entry}" has a bad prefix`);
    list.addSubnet(addr!, prefix, family === 4 ? 'ipv4' : 'ipv6');
  }
  return { kind: 'cidrs', list, text: v };
}

/** `::ffff:1.2.3.4` → `1.2.3.4`; anything else unchanged. */
function unmapIPv4(addr: string): string {
  return addr.length > 7 && addr.startsWith('::ffff:') && isIP(addr.slice(7)) === 4 ? addr.slice(7) : addr;
}

/**
 * The client's address: the socket peer, or an `X-Forwarded-For` entry when the peer (and the entries
 * after it) are proxies we trust. Entries that are not IP addresses stop the walk at the last good one.
 */
export function clientIp(remoteAddress: string | undefined, xff: string | string[] | undefined, trust: TrustProxy): string {
  let current = unmapIPv4(remoteAddress ?? '');
  if (!xff || (trust.kind === 'hops' && trust.hops === 0)) return current;
  const header = Array.isArray(xff) ? xff.join(',') : xff;
  const entries = header.split(',');
  if (trust.kind === 'hops') {
    for (let i = 0; i < trust.hops && entries.length > 0; i++) {
      const next = unmapIPv4(entries.pop()!.trim());
      if (!isIP(next)) break;
      current = next;
    }
    return current;
  }
  while (entries.length > 0 && isTrusted(trust.list, current)) {
    const next = unmapIPv4(entries.pop()!.trim());
    if (!isIP(next)) break;
    current = next;
  }
  return current;
}

function isTrusted(list: BlockList, addr: string): boolean {
  const family = isIP(addr);
  if (!family) return false;
  return list.check(addr, family === 4 ? 'ipv4' : 'ipv6');
}

/** The rate-limit identity of an address: IPv4 as is, IPv6 reduced to its first `prefix` bits. */
export function addressGroup(addr: string, ipv6Prefix: number): string {
  if (isIP(addr) !== 6) return addr;
  const bytes = parseIPv6(addr);
  if (!bytes) return addr;
  let hex = '';
  for (let bit = 0; bit < 128; bit += 8) {
    const byte = bytes[bit / 8]!;
    const keep = Math.max(0, Math.min(8, ipv6Prefix - bit));
    const masked = keep === 0 ? 0 : byte & (0xff << (8 - keep)) & 0xff;
    hex += masked.toString(16).padStart(2, '0');
  }
  return `${hex}/${ipv6Prefix}`;
}

/** 16 bytes of an IPv6 address (with `::` and a trailing dotted IPv4 part), or undefined. */
export function parseIPv6(addr: string): Uint8Array | undefined {
  let s = addr;
  const zone = s.indexOf('%');
  if (zone !== -1) s = s.slice(0, zone);
  const groups: number[] = [];
  const parseGroups = (part: string): number[] | undefined => {
    if (part === '') return [];
    const out: number[] = [];
    const items = part.split(':');
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      if (i === items.length - 1 && item.includes('.')) {
        if (isIP(item) !== 4) return undefined;
        const o = item.split('.').map(Number);
        out.push((o[0]! << 8) | o[1]!, (o[2]! << 8) | o[3]!);
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(item)) return undefined;
        out.push(parseInt(item, 16));
      }
    }
    return out;
  };
  const dbl = s.indexOf('::');
  if (dbl !== -1) {
    const head = parseGroups(s.slice(0, dbl));
    const tail = parseGroups(s.slice(dbl + 2));
    if (!head || !tail || head.length + tail.length > 7) return undefined;
    groups.push(...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail);
  } else {
    const all = parseGroups(s);
    if (!all || all.length !== 8) return undefined;
    groups.push(...all);
  }
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    bytes[i * 2] = g >> 8;
    bytes[i * 2 + 1] = g & 0xff;
  });
  return bytes;
}

/** True when the socket peer is one of our own proxies (a hop count above 0, or an address in the trusted CIDRs). */
export function isTrustedPeer(remoteAddress: string | undefined, trust: TrustProxy): boolean {
  if (trust.kind === 'hops') return trust.hops > 0;
  return isTrusted(trust.list, unmapIPv4(remoteAddress ?? ''));
}
