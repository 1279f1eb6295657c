import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Knex } from 'knex';
import { b58ToC32 } from 'c32check';
import { createDb, migrateLatest } from '@bda/db';
import { createTestDatabase, testInfra } from '@bda/test-support';
import { runBnsImport } from '../../indexer/src/cli/bns-import';
import { startApi, type ApiHarness } from './support/api-harness';

/**
 * The genesis import (`npm run bns-import`) of the sample in test/fixtures/bns-v1-import/, then the naming endpoints
 * over it. Expectations are read from the sample files by this test's own parsing, and prices are worked out here from
 * the contract's formula.
 */

const FIXTURE_DIR = join(import.meta.dirname, '../../../test/fixtures/bns-v1-import');
const FILES = ['chainstate.txt', 'name_zonefiles.txt', 'subdomains.csv', 'subdomain_zonefiles.txt'];
const read = (file: string) => readFileSync(join(FIXTURE_DIR, file), 'utf8');

/** The rows of a chainstate section (without its header). */
function section(name: string): string[][] {
  const text = read('chainstate.txt');
  const body = text.split(`-----BEGIN ${name}-----\n`)[1]!.split(`-----END ${name}-----`)[0]!;
  return body
    .split('\n')
    .filter((l) => l !== '')
    .slice(1)
    .map((l) => l.split(','));
}

/** hash → zonefile of an alternating-lines zonefile file. */
function zonefiles(file: string): Map<string, string> {
  const ls = read(file).split('\n');
  const out = new Map<string, string>();
  for (let i = 0; i + 1 < ls.length; i += 2) out.set(ls[i]!, ls[i + 1]!.split('\\n').join('\n'));
  return out;
}

const NAMESPACES = section('NAMESPACES').map(([id, address, buckets, base, coeff, nonalpha, noVowel, lifetime]) => ({
  id: id!,
  address: address!,
  buckets: buckets!.split(';').map(BigInt),
  base: BigInt(base!),
  coeff: BigInt(coeff!),
  nonalpha: BigInt(nonalpha!),
  noVowel: BigInt(noVowel!),
  lifetime: Number(lifetime),
}));
const NAMES = section('NAMES').map(([name, address, hash]) => ({ name: name!, address: address!, hash: hash! }));
const NAME_ZONEFILES = zonefiles('name_zonefiles.txt');
const SUBDOMAIN_ZONEFILES = zonefiles('subdomain_zonefiles.txt');
const SUBDOMAINS = read('subdomains.csv')
  .split('\n')
  .slice(1)
  .filter((l) => l !== '')
  .map((l) => l.split(','))
  .map(([hash, , fqn, owner, , , , resolver]) => ({ hash: hash!, fqn: fqn!, owner: owner!, resolver: resolver! }));

async function tableDigests(db: Knex): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const table of ['bns_namespaces', 'bns_names', 'bns_zonefiles', 'bns_subdomains']) {
    const { rows } = await db.raw<{ rows: Array<{ d: string | null; n: string }> }>(
      `SELECT md5(string_agg(t::text, '|' ORDER BY t::text)) AS d, count(*) AS n FROM ${table} t`,
    );
    out[table] = `${rows[0]!.n}:${rows[0]!.d}`;
  }
  return out;
}

let api: ApiHarness;
const firstRun: string[] = [];
const secondRun: string[] = [];
let afterFirst: Record<string, string>;

beforeAll(async () => {
  api = await startApi(testInfra().databaseUrl);
  expect(await runBnsImport([FIXTURE_DIR], api.databaseUrl, (l) => firstRun.push(l))).toBe(0);
  afterFirst = await tableDigests(api.db);
  expect(await runBnsImport([FIXTURE_DIR], api.databaseUrl, (l) => secondRun.push(l))).toBe(0);
});

afterAll(async () => {
  await api?.close();
});

describe('npm run bns-import', () => {
  it('imports every namespace, name, zonefile and subdomain of the sample, and nothing when run again', async () => {
    const zonefileCount = new Set([...NAME_ZONEFILES.keys(), ...SUBDOMAIN_ZONEFILES.keys()]).size;
    expect(firstRun).toEqual([
      `bns-import: ${NAMESPACES.length} namespaces, ${NAMES.length} names, ${zonefileCount} zonefiles, ${SUBDOMAINS.length} subdomains new; 0 rows skipped`,
    ]);
    expect([NAMESPACES.length, NAMES.length, zonefileCount, SUBDOMAINS.length]).toEqual([5, 12, 62, 50]);
    expect(secondRun).toEqual(['bns-import: 0 namespaces, 0 names, 0 zonefiles, 0 subdomains new; 0 rows skipped']);
    expect(await tableDigests(api.db)).toEqual(afterFirst);
  });

  it('reads the same files gzipped, to the same rows', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bns-gz-'));
    for (const f of FILES) writeFileSync(join(dir, `${f}.gz`), gzipSync(readFileSync(join(FIXTURE_DIR, f))));
    const url = await createTestDatabase(testInfra().databaseUrl, 'bns_gz');
    const db = createDb({ connectionString: url, maxConnections: 2 });
    try {
      await migrateLatest(db);
      const out: string[] = [];
      expect(await runBnsImport([dir], url, (l) => out.push(l))).toBe(0);
      expect(out).toEqual(firstRun);
      expect(await tableDigests(db)).toEqual(afterFirst);
    } finally {
      await db.destroy();
    }
  });

  it('answers a usage line and exit code 2 without a directory', async () => {
    const out: string[] = [];
    expect(await runBnsImport([], api.databaseUrl, (l) => out.push(l))).toBe(2);
    expect(out[0]).toMatch(/^usage: npm run bns-import -- <dir/);
  });
});

describe('the imported names through the api', () => {
  it('lists the namespaces and each namespace’s names', async () => {
    expect((await api.get('/v1/namespaces')).body).toEqual({ namespaces: NAMESPACES.map((n) => n.id).sort() });
    for (const ns of NAMESPACES) {
      const expected = NAMES.filter((n) => n.name.endsWith(`.${ns.id}`))
        .map((n) => n.name)
        .sort();
      const res = await api.get(`/v1/namespaces/${ns.id}/names`);
      expect({ ns: ns.id, status: res.status, body: res.body as unknown }).toEqual({ ns: ns.id, status: 200, body: expected });
    }
    expect((await api.get('/v1/names')).body).toEqual(NAMES.map((n) => n.name).sort());
  });

  it('resolves every name of the sample: owner, zonefile, lease from block 1', async () => {
    for (const n of NAMES) {
      const ns = NAMESPACES.find((x) => n.name.endsWith(`.${x.id}`))!;
      const expire = ns.lifetime === 0 ? 0 : 1 + ns.lifetime;
      const res = await api.get(`/v1/names/${n.name}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        address: n.address,
        blockchain: 'stacks',
        expire_block: expire,
        grace_period: expire === 0 ? 0 : expire + 5000,
        last_txid: '',
        status: 'name-import',
        zonefile: NAME_ZONEFILES.get(n.hash),
        zonefile_hash: n.hash,
      });
      expect((await api.get(`/v1/names/${n.name}/zonefile`)).body).toEqual({ zonefile: NAME_ZONEFILES.get(n.hash) });
      expect((await api.get(`/v1/addresses/stacks/${n.address}`)).body).toEqual({ names: [n.name] });
    }
  });

  it('resolves every subdomain of the sample, its Bitcoin-era owner in Stacks form', async () => {
    for (const s of SUBDOMAINS) {
      const res = await api.get(`/v1/names/${s.fqn}`);
      expect({ fqn: s.fqn, status: res.status, body: res.body as unknown }).toEqual({
        fqn: s.fqn,
        status: 200,
        body: {
          address: b58ToC32(s.owner),
          blockchain: 'stacks',
          last_txid: '',
          resolver: s.resolver,
          status: 'registered_subdomain',
          zonefile: SUBDOMAIN_ZONEFILES.get(s.hash),
          zonefile_hash: s.hash,
        },
      });
    }
    expect((await api.get('/v1/names/id.blockstack/subdomains')).body).toEqual(SUBDOMAINS.map((s) => s.fqn).sort());
    const first = SUBDOMAINS[0]!;
    expect((await api.get(`/v1/addresses/stacks/${b58ToC32(first.owner)}`)).body).toEqual({ names: [first.fqn] });
  });

  it('prices names of every sample namespace, lengths 1–20, with and without vowels and non-alpha characters', async () => {
    const VOWELS = 'aeiouy';
    const NON_ALPHA = '0123456789-_';
    // compute-name-price: ((coeff × base^bucket[min(len, 16) − 1]) / max(non-alpha divisor, no-vowel divisor)) × 10.
    const expected = (ns: (typeof NAMESPACES)[number], name: string): string => {
      let exponent = ns.buckets[15]!;
      if (name.length <= 16) exponent = ns.buckets[name.length - 1]!;
      const noVowelDivisor = [...name].some((c) => VOWELS.includes(c)) ? 1n : ns.noVowel;
      const nonAlphaDivisor = [...name].some((c) => NON_ALPHA.includes(c)) ? ns.nonalpha : 1n;
      const divisor = noVowelDivisor > nonAlphaDivisor ? noVowelDivisor : nonAlphaDivisor;
      return (((ns.coeff * ns.base ** exponent) / divisor) * 10n).toString();
    };
    let checked = 0;
    for (const ns of NAMESPACES) {
      for (let len = 1; len <= 20; len++) {
        for (const name of ['a'.repeat(len), 'b'.repeat(len), `${'c'.repeat(len - 1)}7`, `${'e'.repeat(len - 1)}-`]) {
          const res = await api.get(`/v2/prices/names/${name}.${ns.id}`);
          expect({ name: `${name}.${ns.id}`, body: res.body as unknown }).toEqual({
            name: `${name}.${ns.id}`,
            body: { units: 'STX', amount: expected(ns, name) },
          });
          checked++;
        }
      }
    }
    expect(checked).toBe(5 * 20 * 4);
    // A few by hand: id (base 4, coeff 250, buckets 6,5,4,3,2,1,0…): muneeb (6 letters, bucket 1) = 250 × 4 × 10.
    expect((await api.get('/v2/prices/names/muneeb.id')).body).toEqual({ units: 'STX', amount: '10000' });
    // helloworld (base 2, coeff 4, buckets 15…0, non-alpha 2, no-vowel 5): "x" has no vowel: (4 × 2^15) / 5 = 26214, × 10.
    expect((await api.get('/v2/prices/names/x.helloworld')).body).toEqual({ units: 'STX', amount: '262140' });
    // podcast (base 40, coeff 250, buckets all 1, divisors 1): 250 × 40 × 10 whatever the name.
    expect((await api.get('/v2/prices/names/z9.podcast')).body).toEqual({ units: 'STX', amount: '100000' });
    expect((await api.get('/v2/prices/names/muneeb.nosuch')).status).toBe(400);
  });
});
