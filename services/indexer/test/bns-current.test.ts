import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Cl, type ClarityValue, getAddressFromPrivateKey, makeContractCall } from '@stacks/transactions';
import { createLogger } from '@bda/common';
import { createDb, type DbBnsName, type DbBnsNamespace, type DbBnsSubdomain, MIGRATIONS, migrateLatest } from '@bda/db';
import { createTestDatabase, testInfra, newBlockEvent, type BlockRef } from '@bda/test-support';
import { stacksEventHandler } from '../src/stacks/stacks-event-handler';

/**
 * The current-state tables of BNS (`bns_names_current`, `bns_subdomains_current`) against a recomputation from the
 * history tables written here (not the indexer's SQL), after every event of a story applied by the indexer's own
 * handler on a real PostgreSQL: registrations, a transfer, a renewal without zonefile, a revocation, expiry and a new
 * registration by someone else, subdomain updates (a higher and a lower seqn, zonefiles arriving before and after their
 * block), a name imported before its namespace's launch; then a reorg that removes all but the registrations, and its
 * reversal. Hand-written expectations at both ends show the recomputation compares something.
 */

const BNS = 'ST000000000000000000002AMW42H.bns';
const key = (n: number) => `${n.toString(16).padStart(2, '0').repeat(32)}01`;
const KEYS = { A: key(1), B: key(3), C: key(4), D: key(5), E: key(6), F: key(7), G: key(8) };
type Who = keyof typeof KEYS;
const ADDR = Object.fromEntries(Object.entries(KEYS).map(([w, k]) => [w, getAddressFromPrivateKey(k, 'testnet')])) as Record<
  Who,
  string
>;
const hex = (cv: ClarityValue) => `0x${Cl.serialize(cv)}`;
const sha = (s: string) => `0x${createHash('sha256').update(s).digest('hex')}`;
const hash160 = (text: string) => createHash('ripemd160').update(createHash('sha256').update(text).digest()).digest('hex');
const b64 = (text: string) => Buffer.from(text).toString('base64');

const nonces = new Map<Who, bigint>();
async function call(who: Who, fn: string, args: ClarityValue[]): Promise<{ txid: string; raw: string }> {
  const nonce = nonces.get(who) ?? 0n;
  nonces.set(who, nonce + 1n);
  const tx = await makeContractCall({
    contractAddress: BNS.split('.')[0]!,
    contractName: 'bns',
    functionName: fn,
    functionArgs: args,
    senderKey: KEYS[who],
    network: 'testnet',
    fee: 1000n,
    nonce,
    validateWithAbi: false,
    postConditionMode: 'allow',
  });
  return { txid: `0x${tx.txid()}`, raw: `0x${tx.serialize()}` };
}

type Event = Record<string, unknown>;
const nameKey = (name: string, ns: string) =>
  hex(Cl.tuple({ name: Cl.bufferFromAscii(name), namespace: Cl.bufferFromAscii(ns) }));
const print = (value: ClarityValue) => ({
  type: 'contract_event',
  contract_event: { contract_identifier: BNS, topic: 'print', raw_value: hex(value) },
});
const namePrint = (who: Who, name: string, ns: string, op: string, zonefileHash: string) =>
  print(
    Cl.tuple({
      attachment: Cl.tuple({
        hash: Cl.bufferFromHex(zonefileHash),
        'attachment-index': Cl.uint(0),
        metadata: Cl.tuple({
          name: Cl.bufferFromAscii(name),
          namespace: Cl.bufferFromAscii(ns),
          'tx-sender': Cl.standardPrincipal(ADDR[who]),
          op: Cl.stringAscii(op),
        }),
      }),
    }),
  );
const mint = (name: string, ns: string, to: Who) => ({
  type: 'nft_mint_event',
  nft_mint_event: { asset_identifier: `${BNS}::names`, recipient: ADDR[to], raw_value: nameKey(name, ns) },
});
const nftTransfer = (name: string, ns: string, from: Who, to: Who) => ({
  type: 'nft_transfer_event',
  nft_transfer_event: {
    asset_identifier: `${BNS}::names`,
    sender: ADDR[from],
    recipient: ADDR[to],
    raw_value: nameKey(name, ns),
  },
});
const readyPrint = (ns: string, lifetime: number, revealedAt: number, launchedAt: number) =>
  print(
    Cl.tuple({
      namespace: Cl.bufferFromAscii(ns),
      status: Cl.stringAscii('ready'),
      properties: Cl.tuple({
        'namespace-import': Cl.standardPrincipal(ADDR.A),
        'revealed-at': Cl.uint(revealedAt),
        'launched-at': Cl.some(Cl.uint(launchedAt)),
        lifetime: Cl.uint(lifetime),
        'can-update-price-function': Cl.bool(true),
        'price-function': Cl.tuple({
          buckets: Cl.list(Array.from({ length: 16 }, () => Cl.uint(1))),
          base: Cl.uint(1),
          coeff: Cl.uint(1),
          'nonalpha-discount': Cl.uint(1),
          'no-vowel-discount': Cl.uint(1),
        }),
      }),
    }),
  );

type Ref = BlockRef;
type Tx = { tx: { txid: string; raw: string }; events: Event[] };

/** A Stacks 2.x `/new_block` body on `parent` with these transactions (each successful) and their events. */
function newBlock(label: string, parent: Ref, txs: Tx[] = []): { ref: Ref; body: Record<string, unknown> } {
  return newBlockEvent(
    label,
    parent,
    txs.map(({ tx, events }) => ({ ...tx, events })),
  );
}

const attachment = (ref: Ref, txid: string, zonefile: string) => ({
  attachment_index: 0,
  index_block_hash: ref.index_block_hash,
  block_height: String(ref.block_height),
  content_hash: `0x${hash160(zonefile)}`,
  contract_id: BNS,
  metadata: '0x00',
  tx_id: txid,
  content: `0x${Buffer.from(zonefile).toString('hex')}`,
});

const subRecord = (label: string, owner: string, seqn: number) =>
  `${label} TXT "owner=${owner}" "seqn=${seqn}" "parts=1" "zf0=${b64(`$ORIGIN ${label}\n$TTL 3600\n`)}"`;
const carol1 = ['$ORIGIN carol.sub', subRecord('sub1', ADDR.C, 0), subRecord('sub2', ADDR.C, 0), ''].join('\n');
const carol2 = ['$ORIGIN carol.sub', subRecord('sub1', ADDR.D, 1), ''].join('\n');
const carol3 = ['$ORIGIN carol.sub', subRecord('sub1', ADDR.E, 0), subRecord('sub3', ADDR.E, 0), ''].join('\n');
const aliceZone = '$ORIGIN alice.app\n$TTL 3600\n';

/** A row of `bns_names_current`: the history row's columns (but `sets_zonefile`) and the expiry. */
type CurrentName = Omit<DbBnsName, 'sets_zonefile'> & { expire_block: string };

const bytewise = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
type Position = { block_height: number; tx_index: number; event_index: number };
/** Newest first by (height, tx, event), as a chain orders changes. */
const newestFirst = (a: Position, b: Position) =>
  b.block_height - a.block_height || b.tx_index - a.tx_index || b.event_index - a.event_index;
/** The first row of each key in `order`. */
function firstOf<T>(rows: T[], keyOf: (r: T) => string, order: (a: T, b: T) => number): Map<string, T> {
  const out = new Map<string, T>();
  for (const r of [...rows].sort(order)) if (!out.has(keyOf(r))) out.set(keyOf(r), r);
  return out;
}

/**
 * What the current tables must hold, from the history alone: a name's newest row, its expiry from its namespace's newest
 * row (lifetime 0 or no namespace: 0; else lease start + lifetime, the start being the registration or renewal, or the
 * launch for a name imported between reveal and launch, else 0); a subdomain's record of highest seqn, the first on the
 * chain among equal ones; names and subdomains in byte order.
 */
async function recomputed(db: Knex) {
  const names: DbBnsName[] = await db('bns_names').select();
  const namespaces: DbBnsNamespace[] = await db('bns_namespaces').select();
  const subdomains: DbBnsSubdomain[] = await db('bns_subdomains').select();
  const ns = firstOf(namespaces, (r) => r.namespace_id, newestFirst);
  const currentNames = [...firstOf(names, (r) => r.fqn, newestFirst).values()].map((n): CurrentName => {
    const space = ns.get(n.namespace_id);
    const lifetime = Number(space?.lifetime ?? 0);
    const launched = space?.launched_at ?? null;
    const importedBeforeLaunch =
      n.imported_at !== null && launched !== null && n.imported_at >= space!.revealed_at && n.imported_at <= launched;
    const start = n.registered_at ?? (importedBeforeLaunch ? launched! : 0);
    const { sets_zonefile: _, ...columns } = n;
    return { ...columns, expire_block: String(lifetime === 0 ? 0 : start + lifetime) };
  });
  const bySeqn = (a: DbBnsSubdomain, b: DbBnsSubdomain) => {
    const d = BigInt(b.seqn) - BigInt(a.seqn);
    if (d !== 0n) return d > 0n ? 1 : -1;
    return a.block_height - b.block_height || a.tx_index - b.tx_index || bytewise(a.parent_zonefile_hash, b.parent_zonefile_hash);
  };
  const currentSubdomains = [...firstOf(subdomains, (r) => r.fqn, bySeqn).values()].map((s) => ({ fqn: s.fqn, owner: s.owner }));
  return {
    names: currentNames.sort((a, b) => bytewise(a.fqn, b.fqn)),
    subdomains: currentSubdomains.sort((a, b) => bytewise(a.fqn, b.fqn)),
  };
}

/**
 * What `/v1/addresses/stacks/{address}` must answer for each address at tip height `tip`, from the recomputation:
 * its names that are not revoked and whose lease runs at the tip (expiry 0 or at least the tip), and its subdomains,
 * in byte order. Every address of the current tables is listed (an empty list when it holds nothing that resolves).
 */
function addressAnswers(rec: Awaited<ReturnType<typeof recomputed>>, tip: number): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (address: string, fqn?: string) => {
    const list = out.get(address) ?? [];
    if (fqn !== undefined) list.push(fqn);
    out.set(address, list);
  };
  for (const n of rec.names) {
    const expiry = Number(n.expire_block);
    add(n.address, !n.revoked && (expiry === 0 || expiry >= tip) ? n.fqn : undefined);
  }
  for (const s of rec.subdomains) add(s.owner, s.fqn);
  for (const list of out.values()) list.sort(bytewise);
  return out;
}

/** The kept answers (`bns_address_names`, migration 094): each address's names, and whether its range holds `tip`. */
async function keptAnswers(db: Knex, tip: number): Promise<Map<string, { names: string[]; holds: boolean }>> {
  const rows: Array<{ address: string; names: string; valid_from: string; valid_until: string }> =
    await db('bns_address_names').select();
  return new Map(
    rows.map((r) => [
      r.address,
      {
        names: JSON.parse(r.names) as string[],
        holds: BigInt(r.valid_from) <= BigInt(tip) && BigInt(tip) <= BigInt(r.valid_until),
      },
    ]),
  );
}

const tipHeight = async (db: Knex) => Number((await db('chain_tip').first('block_height'))?.block_height ?? 0);

/**
 * The kept answers agree with `addressAnswers` at the tip: every address holding something has a row whose range
 * holds the tip (the indexer keeps up with expiries), every row holding the tip says what the address holds, and an
 * address left holding nothing keeps an empty list.
 */
async function expectKeptAnswers(db: Knex, label: string): Promise<void> {
  const tip = await tipHeight(db);
  const expected = addressAnswers(await recomputed(db), tip);
  const kept = await keptAnswers(db, tip);
  const mismatches: string[] = [];
  for (const [address, names] of expected) {
    const row = kept.get(address);
    if (names.length > 0 && !row) mismatches.push(`${address}: no row`);
    else if (row && !row.holds) mismatches.push(`${address}: range misses tip ${tip}`);
    else if (row && JSON.stringify(row.names) !== JSON.stringify(names))
      mismatches.push(`${address}: ${JSON.stringify(row.names)} instead of ${JSON.stringify(names)}`);
  }
  for (const [address, row] of kept)
    if (!expected.has(address) && (row.names.length > 0 || !row.holds)) mismatches.push(`${address}: stale row`);
  expect({ after: label, mismatches }).toEqual({ after: label, mismatches: [] });
}

async function current(db: Knex) {
  return {
    names: (await db('bns_names_current').orderBy('fqn').select()) as CurrentName[],
    subdomains: (await db('bns_subdomains_current').orderBy('fqn').select('fqn', 'owner')) as Array<{
      fqn: string;
      owner: string;
    }>,
  };
}

describe('the BNS current-state tables', () => {
  let db: Knex;
  const handler = stacksEventHandler(createLogger('indexer', 'silent'));
  /** The events after which the current tables were compared with the recomputation. */
  const checked: string[] = [];

  async function send(label: string, path: string, body: unknown): Promise<void> {
    await db.transaction(async (trx) => {
      handler.onBatchStart();
      await handler.handle(trx, { path, received_at: '2024-01-01T00:00:00.000Z', body });
      await handler.beforeCommit(trx);
    });
    expect({ after: label, ...(await current(db)) }).toEqual({ after: label, ...(await recomputed(db)) });
    await expectKeptAnswers(db, label);
    checked.push(label);
  }
  const byName = async (fqn: string) => (await current(db)).names.find((n) => n.fqn === fqn);
  const ownerOf = async (fqn: string) => (await current(db)).subdomains.find((s) => s.fqn === fqn)?.owner;
  /** Each address's kept answer at the tip, as written by hand in the tests (`undefined`: no row holding the tip). */
  const answers = async () => {
    const kept = await keptAnswers(db, await tipHeight(db));
    const out: Partial<Record<Who, string[]>> = {};
    for (const who of Object.keys(ADDR) as Who[]) {
      const row = kept.get(ADDR[who]);
      if (row?.holds) out[who] = row.names;
    }
    return out;
  };

  const TX = {} as Record<string, { txid: string; raw: string }>;
  let h2: Ref;
  let mainTip: Ref;

  beforeAll(async () => {
    db = createDb({ connectionString: await createTestDatabase(testInfra().databaseUrl, 'bns_current'), maxConnections: 2 });
    await migrateLatest(db);
    const root: Ref = { index_block_hash: sha('root'), block_hash: sha('root block'), block_height: 0 };
    const salt = Cl.bufferFromHex('11'.repeat(20));
    const asciis = (...xs: string[]) => xs.map((x) => Cl.bufferFromAscii(x));
    const register = async (who: Who, name: string, ns: string, zonefile: string): Promise<Tx> => {
      const h = hash160(zonefile);
      TX[`reg ${name}`] = await call(who, 'name-register', [...asciis(ns, name), salt, Cl.bufferFromHex(h)]);
      return { tx: TX[`reg ${name}`]!, events: [mint(name, ns, who), namePrint(who, name, ns, 'name-register', h)] };
    };

    // h1: app (names live 3 blocks) and sub (never expire) ready; bob.imp imported while imp is only revealed (at 1).
    TX.readyApp = await call('A', 'namespace-ready', asciis('app'));
    TX.readySub = await call('A', 'namespace-ready', asciis('sub'));
    TX.importBob = await call('A', 'name-import', [
      ...asciis('imp', 'bob'),
      Cl.standardPrincipal(ADDR.B),
      Cl.bufferFromHex('22'.repeat(20)),
    ]);
    const b1 = newBlock('1', root, [
      { tx: TX.readyApp, events: [readyPrint('app', 3, 1, 1)] },
      { tx: TX.readySub, events: [readyPrint('sub', 0, 1, 1)] },
      { tx: TX.importBob, events: [mint('bob', 'imp', 'B'), namePrint('A', 'bob', 'imp', 'name-import', '22'.repeat(20))] },
    ]);
    // h2: alice.app (B), carol.sub (C, subdomains sub1 and sub2: its zonefile came first), eve.app (E), old.app (F).
    const b2 = newBlock('2', b1.ref, [
      await register('B', 'alice', 'app', aliceZone),
      await register('C', 'carol', 'sub', carol1),
      await register('E', 'eve', 'app', '$ORIGIN eve.app\n'),
      await register('F', 'old', 'app', '$ORIGIN old.app\n'),
    ]);
    h2 = b2.ref;
    // h3: alice.app B → D (zonefile cleared); carol.sub: sub1 to D at seqn 1 (its zonefile comes after); imp launched at 3.
    TX.transfer = await call('B', 'name-transfer', [...asciis('app', 'alice'), Cl.standardPrincipal(ADDR.D), Cl.none()]);
    TX.carol2 = await call('C', 'name-update', [...asciis('sub', 'carol'), Cl.bufferFromHex(hash160(carol2))]);
    TX.readyImp = await call('A', 'namespace-ready', asciis('imp'));
    const b3 = newBlock('3', b2.ref, [
      { tx: TX.transfer, events: [nftTransfer('alice', 'app', 'B', 'D'), namePrint('B', 'alice', 'app', 'name-transfer', '')] },
      { tx: TX.carol2, events: [namePrint('C', 'carol', 'sub', 'name-update', hash160(carol2))] },
      { tx: TX.readyImp, events: [readyPrint('imp', 100, 1, 3)] },
    ]);
    // h4: D renews alice.app without zonefile (prints nothing); eve.app revoked; carol.sub: sub1 to E at seqn 0
    // (ignored), sub3 new.
    TX.renewal = await call('D', 'name-renewal', [...asciis('app', 'alice'), Cl.uint(1), Cl.none(), Cl.none()]);
    TX.revoke = await call('E', 'name-revoke', asciis('app', 'eve'));
    TX.carol3 = await call('C', 'name-update', [...asciis('sub', 'carol'), Cl.bufferFromHex(hash160(carol3))]);
    const b4 = newBlock('4', b3.ref, [
      { tx: TX.renewal, events: [] },
      { tx: TX.revoke, events: [namePrint('E', 'eve', 'app', 'name-revoke', '')] },
      { tx: TX.carol3, events: [namePrint('C', 'carol', 'sub', 'name-update', hash160(carol3))] },
    ]);
    // h5 empty; h6: old.app (F's lease ended at 5) registered by G: the NFT moves F → G.
    const b5 = newBlock('5', b4.ref);
    const blocks = [b1, b2, b3, b4, b5];
    const parent = b5.ref;
    TX.regOldG = await call('G', 'name-register', [
      ...asciis('app', 'old'),
      salt,
      Cl.bufferFromHex(hash160('$ORIGIN old.app\n')),
    ]);
    blocks.push(
      newBlock('6', parent, [
        {
          tx: TX.regOldG,
          events: [
            nftTransfer('old', 'app', 'F', 'G'),
            namePrint('G', 'old', 'app', 'name-register', hash160('$ORIGIN old.app\n')),
          ],
        },
      ]),
    );
    mainTip = blocks.at(-1)!.ref;

    await send('carol1 attachment', '/attachments/new', [attachment(b2.ref, TX['reg carol']!.txid, carol1)]);
    for (const b of blocks) {
      await send(`block ${b.ref.block_height}`, '/new_block', b.body);
      if (b === b3) await send('carol2 attachment', '/attachments/new', [attachment(b3.ref, TX.carol2.txid, carol2)]);
      if (b === b4) await send('carol3 attachment', '/attachments/new', [attachment(b4.ref, TX.carol3.txid, carol3)]);
    }
  });
  afterAll(() => db?.destroy());

  it('equals the recomputation after every block and attachment of the story, and says what the story implies', async () => {
    expect(checked).toHaveLength(9);
    expect(await byName('alice.app')).toMatchObject({
      address: ADDR.D,
      zonefile_hash: '',
      status: 'name-renewal',
      expire_block: '7',
    });
    expect(await byName('eve.app')).toMatchObject({ address: ADDR.E, revoked: true, expire_block: '5' });
    expect(await byName('old.app')).toMatchObject({ address: ADDR.G, tx_id: TX.regOldG!.txid, expire_block: '9' });
    expect(await byName('bob.imp')).toMatchObject({ address: ADDR.B, expire_block: '103' }); // imported before launch (3)
    expect(await byName('carol.sub')).toMatchObject({ address: ADDR.C, zonefile_hash: hash160(carol3), expire_block: '0' });
    expect(await ownerOf('sub1.carol.sub')).toBe(ADDR.D);
    expect(await ownerOf('sub2.carol.sub')).toBe(ADDR.C);
    expect(await ownerOf('sub3.carol.sub')).toBe(ADDR.E);
    // At tip 6: alice.app (renewed, to 7) and sub1 are D's; eve.app revoked; old.app (F's lease ended at 5) is G's.
    expect(await tipHeight(db)).toBe(6);
    expect(await answers()).toEqual({
      B: ['bob.imp'],
      C: ['carol.sub', 'sub2.carol.sub'],
      D: ['alice.app', 'sub1.carol.sub'],
      E: ['sub3.carol.sub'],
      F: [],
      G: ['old.app'],
    });
  });

  it('follows a reorg that removes everything after the registrations, block by block, and its reversal', async () => {
    let parent = h2;
    for (let h = 3; h <= 7; h++) {
      const b = newBlock(`fork ${h}`, parent);
      await send(`fork block ${h}`, '/new_block', b.body);
      parent = b.ref;
    }
    // The fork (7) overtook the main chain (6) at its last block: back to the state after h2.
    expect(await byName('alice.app')).toMatchObject({ address: ADDR.B, zonefile_hash: hash160(aliceZone), expire_block: '5' });
    expect(await byName('eve.app')).toMatchObject({ revoked: false });
    expect(await byName('old.app')).toMatchObject({ address: ADDR.F, expire_block: '5' });
    expect(await byName('bob.imp')).toMatchObject({ expire_block: '0' }); // imp's launch is gone
    expect(await ownerOf('sub1.carol.sub')).toBe(ADDR.C);
    expect(await ownerOf('sub3.carol.sub')).toBeUndefined();
    // At tip 7 the leases of the app names registered at 2 (to 5) have ended: only imp's and sub's names resolve.
    expect(await answers()).toEqual({
      B: ['bob.imp'],
      C: ['carol.sub', 'sub1.carol.sub', 'sub2.carol.sub'],
      D: [],
      E: [],
      F: [],
      G: [],
    });

    const before = await current(db);
    parent = mainTip;
    for (let h = 7; h <= 8; h++) {
      const b = newBlock(`main ${h}`, parent);
      await send(`main block ${h}`, '/new_block', b.body);
      parent = b.ref;
    }
    expect(await byName('alice.app')).toMatchObject({ address: ADDR.D, expire_block: '7' });
    expect(await byName('bob.imp')).toMatchObject({ expire_block: '103' });
    expect(await ownerOf('sub1.carol.sub')).toBe(ADDR.D);
    expect(await ownerOf('sub3.carol.sub')).toBe(ADDR.E);
    expect(await current(db)).not.toEqual(before);
    // At tip 8 alice.app's renewed lease (to 7) has ended too; old.app's (to 9) runs.
    expect(await answers()).toEqual({
      B: ['bob.imp'],
      C: ['carol.sub', 'sub2.carol.sub'],
      D: ['sub1.carol.sub'],
      E: ['sub3.carol.sub'],
      F: [],
      G: ['old.app'],
    });
    // Two empty blocks: at tip 10 old.app's lease (to 9) has ended without any naming change in a block: only the
    // tip moved, and G's kept answer follows it.
    for (let h = 9; h <= 10; h++) {
      const b = newBlock(`main ${h}`, parent);
      await send(`main block ${h}`, '/new_block', b.body);
      parent = b.ref;
    }
    expect(await tipHeight(db)).toBe(10);
    expect((await answers()).G).toEqual([]);
  });

  it('is created filled from the history already stored (migration 075 on a database with names)', async () => {
    const migration = MIGRATIONS.find(([name]) => name === '075-bns-current')![1];
    const kept = await current(db);
    expect(kept.names.length).toBeGreaterThan(0);
    await migration.down(db);
    await migration.up(db);
    expect(await current(db)).toEqual(kept);
    expect(await current(db)).toEqual(await recomputed(db));
  });

  it('keeps the address answers filled by migration 094 from the current tables equal to those the indexer kept', async () => {
    const migration = MIGRATIONS.find(([name]) => name === '094-bns-address-names')![1];
    const kept = await answers();
    expect(kept.D).toEqual(['sub1.carol.sub']);
    await migration.down(db);
    await migration.up(db);
    // The indexer keeps an empty row for an address that held names (F); the fill has rows for holders only.
    const holding = (a: Partial<Record<Who, string[]>>) => Object.entries(a).filter(([, names]) => names.length > 0);
    expect(holding(await answers())).toEqual(holding(kept));
    expect((await answers()).F).toBeUndefined();
    await expectKeptAnswers(db, 'migration 094');
  });
});
