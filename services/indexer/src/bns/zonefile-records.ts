import { createHash } from 'node:crypto';
import { toStacksAddress } from './bitcoin-address';

/** hash160 (RIPEMD-160 of SHA-256) as 40 hex digits: the hash BNS names a zonefile by. */
function hash160Hex(data: string | Uint8Array): string {
  return createHash('ripemd160').update(createHash('sha256').update(data).digest()).digest('hex');
}

/** One subdomain TXT record of a zonefile. */
export interface SubdomainRecord {
  /** The label (the part before the parent name). */
  label: string;
  /** Owner in Stacks form. */
  owner: string;
  seqn: bigint;
  /** Its own zonefile, decoded from the `zf0…` parts. */
  zonefile: string;
  zonefileHash: string;
  /** Position among the zonefile's subdomain records. */
  index: number;
}

const TXT_LINE = /^(\S+)\s+(?:\d+\s+)?(?:IN\s+)?TXT\s+(.*)$/i;
const QUOTED = /"((?:[^"\\]|\\.)*)"/g;
const LABEL = /^[a-z0-9\-_]{1,37}$/;

/**
 * The subdomain records of a zonefile: TXT records whose strings hold `owner=`, `seqn=`, `parts=` and `zf0=` … (the
 * subdomain's zonefile, base64 in `parts` pieces). A record missing one of them, with a bad label, an owner that is no
 * address or a seqn that is no integer is skipped; a label repeated in one zonefile keeps its first record.
 */
export function parseSubdomainRecords(zonefile: string): SubdomainRecord[] {
  const out: SubdomainRecord[] = [];
  const seen = new Set<string>();
  for (const raw of zonefile.split(/\r?\n/)) {
    const m = TXT_LINE.exec(raw.trim());
    if (!m) continue;
    const label = m[1]!.toLowerCase();
    if (!LABEL.test(label) || seen.has(label)) continue;
    const fields = new Map<string, string>();
    for (const q of m[2]!.matchAll(QUOTED)) {
      const text = q[1]!;
      const eq = text.indexOf('=');
      if (eq > 0 && !fields.has(text.slice(0, eq))) fields.set(text.slice(0, eq), text.slice(eq + 1));
    }
    const owner = toStacksAddress(fields.get('owner') ?? '');
    const seqnText = fields.get('seqn') ?? '';
    const partsText = fields.get('parts') ?? '';
    if (!owner || !/^\d{1,18}$/.test(seqnText) || !/^\d{1,3}$/.test(partsText)) continue;
    const parts = Number(partsText);
    let b64 = '';
    let complete = true;
    for (let i = 0; i < parts; i++) {
      const part = fields.get(`zf${i}`);
      if (part === undefined) complete = false;
      else b64 += part;
    }
    if (!complete) continue;
    const bytes = Buffer.from(b64, 'base64');
    seen.add(label);
    out.push({
      label,
      owner,
      seqn: BigInt(seqnText),
      zonefile: bytes.toString('utf8'),
      zonefileHash: hash160Hex(bytes),
      index: out.length,
    });
  }
  return out;
}

/** The zonefile's resolver: the URL of its `_resolver` URI record, if any. */
export function zonefileResolver(zonefile: string): string | null {
  for (const raw of zonefile.split(/\r?\n/)) {
    const m = /^_resolver\s+(?:\d+\s+)?(?:IN\s+)?URI\s+\d+\s+\d+\s+"([^"]*)"/i.exec(raw.trim());
    if (m) return m[1]!;
  }
  return null;
}
