import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Cl, type ClarityValue, getAddressFromPrivateKey, makeContractCall } from '@stacks/transactions';
import { b58ToC32 } from 'c32check';
import { loadSchemaSources, SchemaValidator } from '@bda/api';
import { startSystem } from '../support/start-system';
import type { TestSystem } from '../support/test-system';
import {
  type BlockRef,
  deadLetterMark,
  expectNoDeadLetterSince,
  hashOf,
  minedTx,
  newBlockBody,
  type NodeEventBody,
  postNodeEvents,
  type RawTx,
} from '../support/node-event-sender';

/**
 * A BNS story on a made-up testnet chain, posted through the observer: real contract-call transactions built with
 * @stacks/transactions, and the print and `names` NFT events the BNS contract's Clarity source emits for them. Every
 * expectation below is worked out by hand from the contract's rules, not from the code under test.
 */

const BNS = 'ST000000000000000000002AMW42H.bns';
const NAMES_ASSET = `${BNS}::names`;
const validator = new SchemaValidator(loadSchemaSources());

// Fixed keys: the story's principals.
const key = (n: number) => `${n.toString(16).padStart(2, '0').repeat(32)}01`;
const KEYS = { A: key(1), N: key(2), B: key(3), C: key(4), D: key(5), E: key(6), F: key(7), G: key(8) };
type Who = keyof typeof KEYS;
const ADDR = Object.fromEntries(Object.entries(KEYS).map(([w, k]) => [w, getAddressFromPrivateKey(k, 'testnet')])) as Record<
  Who,
  string
>;
const nonces = new Map<Who, bigint>();

const hash160 = (text: string) =>
  createHash('ripemd160')
    .update(createHash('sha256').update(Buffer.from(text, 'utf8')).digest())
    .digest('hex');
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const hex = (cv: ClarityValue) => `0x${Cl.serialize(cv)}`;

async function call(who: Who, fn: string, args: ClarityValue[]): Promise<RawTx> {
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

// Zonefiles.
const aliceZone1 = '$ORIGIN alice.app\n$TTL 3600\n_http._tcp IN URI 10 1 "https://gaia.example/alice/1/profile.json"\n';
const aliceZone2 = '$ORIGIN alice.app\n$TTL 3600\n_http._tcp IN URI 10 1 "https://gaia.example/alice/2/profile.json"\n';
/** eve.app's zonefile: its hash is printed, the file itself never arrives. */
const eveZone = '$ORIGIN eve.app\n$TTL 3600\n';
const oldZone = '$ORIGIN old.app\n$TTL 3600\n_http._tcp IN URI 10 1 "https://gaia.example/old/profile.json"\n';
const sub1v0 = '$ORIGIN sub1\n$TTL 3600\n_http._tcp IN URI 10 1 "https://gaia.example/sub1/0.json"\n';
const sub1v1 = '$ORIGIN sub1\n$TTL 3600\n_http._tcp IN URI 10 1 "https://gaia.example/sub1/1.json"\n';
const sub1Stale = '$ORIGIN sub1\n$TTL 3600\n_http._tcp IN URI 10 1 "https://gaia.example/sub1/stale.json"\n';
const sub2v0 = '$ORIGIN sub2\n$TTL 3600\n_http._tcp IN URI 10 1 "https://gaia.example/sub2/0.json"\n';
const sub3v0 =
  '$ORIGIN sub3\n$TTL 3600\n_http._tcp IN URI 10 1 "https://gaia.example/sub3/a-longer-zonefile-in-two-parts.json"\n';
/** A Stacks 1.0 owner of sub2 (from the genesis sample): shown in its Stacks form. */
const SUB2_BTC_OWNER = '158hjd59vxSetAiTTjzty4z7oNFVVdY3ca';
const sub3b64 = b64(sub3v0);
const carolZone1 = [
  '$ORIGIN carol.sub',
  '$TTL 3600',
  '_resolver IN URI 10 1 "https://resolver.example"',
  `sub1 TXT "owner=${ADDR.C}" "seqn=0" "parts=1" "zf0=${b64(sub1v0)}"`,
  `sub2 TXT "owner=${SUB2_BTC_OWNER}" "seqn=0" "parts=1" "zf0=${b64(sub2v0)}"`,
  `sub3 TXT "owner=${ADDR.C}" "seqn=0" "parts=2" "zf0=${sub3b64.slice(0, 20)}" "zf1=${sub3b64.slice(20)}"`,
  '',
].join('\n');
/** A higher seqn for sub1: it moves to D. */
const carolZone2 = [
  '$ORIGIN carol.sub',
  '$TTL 3600',
  `sub1 TXT "owner=${ADDR.D}" "seqn=1" "parts=1" "zf0=${b64(sub1v1)}"`,
  '',
].join('\n');
/** A lower seqn for sub1 (to E): ignored. */
const carolZone3 = [
  '$ORIGIN carol.sub',
  '$TTL 3600',
  `sub1 TXT "owner=${ADDR.E}" "seqn=0" "parts=1" "zf0=${b64(sub1Stale)}"`,
  '',
].join('\n');
const H = {
  alice1: hash160(aliceZone1),
  alice2: hash160(aliceZone2),
  eve: hash160(eveZone),
  old: hash160(oldZone),
  carol1: hash160(carolZone1),
  carol2: hash160(carolZone2),
  carol3: hash160(carolZone3),
};

// The contract's prints and NFT events.
let attachmentIndex = 0;
function namePrint(
  txid: string,
  eventIndex: number,
  who: Who,
  name: string,
  namespace: string,
  op: string,
  zonefileHash: string,
) {
  const event: NodeEventBody = {
    txid,
    event_index: eventIndex,
    committed: true,
    type: 'contract_event',
    contract_event: {
      contract_identifier: BNS,
      topic: 'print',
      raw_value: hex(
        Cl.tuple({
          attachment: Cl.tuple({
            hash: Cl.bufferFromHex(zonefileHash),
            'attachment-index': Cl.uint(attachmentIndex++),
            metadata: Cl.tuple({
              name: Cl.bufferFromAscii(name),
              namespace: Cl.bufferFromAscii(namespace),
              'tx-sender': Cl.standardPrincipal(ADDR[who]),
              op: Cl.stringAscii(op),
            }),
          }),
        }),
      ),
    },
  };
  return event;
}

const nameKey = (name: string, namespace: string) =>
  hex(Cl.tuple({ name: Cl.bufferFromAscii(name), namespace: Cl.bufferFromAscii(namespace) }));

function nftMint(txid: string, eventIndex: number, name: string, namespace: string, to: Who): NodeEventBody {
  return {
    txid,
    event_index: eventIndex,
    committed: true,
    type: 'nft_mint_event',
    nft_mint_event: { asset_identifier: NAMES_ASSET, recipient: ADDR[to], raw_value: nameKey(name, namespace) },
  };
}

function nftTransfer(txid: string, eventIndex: number, name: string, namespace: string, from: Who, to: Who): NodeEventBody {
  return {
    txid,
    event_index: eventIndex,
    committed: true,
    type: 'nft_transfer_event',
    nft_transfer_event: {
      asset_identifier: NAMES_ASSET,
      sender: ADDR[from],
      recipient: ADDR[to],
      raw_value: nameKey(name, namespace),
    },
  };
}

function stxBurn(txid: string, eventIndex: number, who: Who, amount: bigint): NodeEventBody {
  return {
    txid,
    event_index: eventIndex,
    committed: true,
    type: 'stx_burn_event',
    stx_burn_event: { sender: ADDR[who], amount: amount.toString() },
  };
}

interface PriceFunction {
  base: number;
  coeff: number;
  buckets: number[];
  nonalpha: number;
  noVowel: number;
}
const APP: PriceFunction = {
  base: 4,
  coeff: 250,
  buckets: [6, 5, 4, 3, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
  nonalpha: 4,
  noVowel: 4,
};
const SUB: PriceFunction = {
  base: 2,
  coeff: 3,
  buckets: [15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
  nonalpha: 2,
  noVowel: 5,
};

function readyPrint(
  txid: string,
  eventIndex: number,
  namespace: string,
  importer: Who,
  p: PriceFunction,
  lifetime: number,
  revealedAt: number,
  launchedAt: number,
): NodeEventBody {
  return {
    txid,
    event_index: eventIndex,
    committed: true,
    type: 'contract_event',
    contract_event: {
      contract_identifier: BNS,
      topic: 'print',
      raw_value: hex(
        Cl.tuple({
          namespace: Cl.bufferFromAscii(namespace),
          status: Cl.stringAscii('ready'),
          properties: Cl.tuple({
            'namespace-import': Cl.standardPrincipal(ADDR[importer]),
            'revealed-at': Cl.uint(revealedAt),
            'launched-at': Cl.some(Cl.uint(launchedAt)),
            lifetime: Cl.uint(lifetime),
            'can-update-price-function': Cl.bool(true),
            'price-function': Cl.tuple({
              buckets: Cl.list(p.buckets.map((b) => Cl.uint(b))),
              base: Cl.uint(p.base),
              coeff: Cl.uint(p.coeff),
              'nonalpha-discount': Cl.uint(p.nonalpha),
              'no-vowel-discount': Cl.uint(p.noVowel),
            }),
          }),
        }),
      ),
    },
  };
}

function attachment(
  block: BlockRef,
  tx: RawTx | undefined,
  who: Who,
  name: string,
  namespace: string,
  op: string,
  zonefile: string,
) {
  return {
    attachment_index: 0,
    index_block_hash: block.index_block_hash,
    block_height: String(block.block_height),
    content_hash: `0x${hash160(zonefile)}`,
    contract_id: BNS,
    metadata: hex(
      Cl.tuple({
        name: Cl.bufferFromAscii(name),
        namespace: Cl.bufferFromAscii(namespace),
        op: Cl.stringAscii(op),
        'tx-sender': Cl.standardPrincipal(ADDR[who]),
      }),
    ),
    tx_id: tx?.txid ?? '',
    content: `0x${Buffer.from(zonefile, 'utf8').toString('hex')}`,
  };
}

const salt = Cl.bufferFromHex('11'.repeat(20));
const zf = (h: string) => Cl.bufferFromHex(h);

/** What the story's transactions are, for expectations on `last_txid`. */
const TX = {} as Record<string, RawTx>;

interface Step {
  label: string;
  txs?: Array<{ tx: RawTx; events: (txid: string, next: () => number) => NodeEventBody[] }>;
}

/** A block of the given transactions (each with its events, numbered across the block) on `parent`. */
function block(label: string, parent: BlockRef, txs: NonNullable<Step['txs']> = []) {
  let n = 0;
  const next = () => n++;
  const events: NodeEventBody[] = [];
  const mined = txs.map(({ tx, events: ev }, i) => {
    events.push(...ev(tx.txid, next));
    return minedTx(tx, i);
  });
  return newBlockBody(label, parent, { txs: mined, events });
}

/** The BNS read models' whole content: equal digests, equal rows. */
async function bnsDigest(sys: TestSystem): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const table of ['bns_namespaces', 'bns_names', 'bns_zonefiles', 'bns_subdomains']) {
    const { rows } = await sys.db.raw<{ rows: Array<{ d: string | null; n: string }> }>(
      `SELECT md5(string_agg(t::text, '|' ORDER BY t::text)) AS d, count(*) AS n FROM ${table} t`,
    );
    out[table] = `${rows[0]!.n}:${rows[0]!.d}`;
  }
  return out;
}

async function get(sys: TestSystem, path: string, template: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${sys.gatewayUrl}${path}`);
  const body: unknown = await res.json();
  validator.validateResponse(template, 'get', res.status, body);
  return { status: res.status, body };
}

describe('BNS names from the chain', () => {
  let sys: TestSystem;
  let mark = 0;
  let b6: BlockRef;
  let tip: BlockRef;
  /** The read models at the end of the main chain, before any reorg. */
  let beforeReorg: Record<string, string>;

  beforeAll(async () => {
    // Through the gateway, as clients reach it: this suite asks a few hundred questions in a burst.
    sys = await startSystem('postgres', undefined, { RATE_LIMIT_ENABLED: 'false' });
    mark = await deadLetterMark(sys);
    const events: Array<[string, unknown]> = [];
    const root: BlockRef = { index_block_hash: hashOf('bns root'), block_hash: hashOf('bns root block'), block_height: 0 };

    // h1: namespace preorders (they burn STX and print nothing).
    TX.preApp = await call('A', 'namespace-preorder', [Cl.bufferFromHex('aa'.repeat(20)), Cl.uint(64000000000)]);
    TX.preSub = await call('N', 'namespace-preorder', [Cl.bufferFromHex('bb'.repeat(20)), Cl.uint(64000000000)]);
    const b1 = block('bns 1', root, [
      { tx: TX.preApp, events: (t, n) => [stxBurn(t, n(), 'A', 64000000000n)] },
      { tx: TX.preSub, events: (t, n) => [stxBurn(t, n(), 'N', 64000000000n)] },
    ]);
    // h2: reveals (print nothing either).
    const reveal = (ns: string, p: PriceFunction, lifetime: number, importer: Who) => [
      Cl.bufferFromAscii(ns),
      salt,
      Cl.uint(p.base),
      Cl.uint(p.coeff),
      ...p.buckets.map((b) => Cl.uint(b)),
      Cl.uint(p.nonalpha),
      Cl.uint(p.noVowel),
      Cl.uint(lifetime),
      Cl.standardPrincipal(ADDR[importer]),
    ];
    TX.revealApp = await call('A', 'namespace-reveal', reveal('app', APP, 10, 'A'));
    TX.revealSub = await call('N', 'namespace-reveal', reveal('sub', SUB, 0, 'N'));
    const b2 = block('bns 2', b1.ref, [
      { tx: TX.revealApp, events: () => [] },
      { tx: TX.revealSub, events: () => [] },
    ]);
    // h3: ready: app (names live 10 blocks), sub (names never expire).
    TX.readyApp = await call('A', 'namespace-ready', [Cl.bufferFromAscii('app')]);
    TX.readySub = await call('N', 'namespace-ready', [Cl.bufferFromAscii('sub')]);
    const b3 = block('bns 3', b2.ref, [
      { tx: TX.readyApp, events: (t, n) => [readyPrint(t, n(), 'app', 'A', APP, 10, 2, 3)] },
      { tx: TX.readySub, events: (t, n) => [readyPrint(t, n(), 'sub', 'N', SUB, 0, 2, 3)] },
    ]);
    // h4: name preorders.
    const preorders = (['B', 'C', 'E', 'F'] as Who[]).map(async (w) => ({
      tx: await call(w, 'name-preorder', [Cl.bufferFromHex(w.charCodeAt(0).toString(16).repeat(20)), Cl.uint(1_000_000)]),
      events: (t: string, n: () => number) => [stxBurn(t, n(), w, 1_000_000n)],
    }));
    const b4 = block('bns 4', b3.ref, await Promise.all(preorders));
    // h5: registrations: alice.app (B), carol.sub (C, three subdomains), eve.app (E), old.app (F).
    const register = async (w: Who, name: string, ns: string, h: string) => {
      const tx = await call(w, 'name-register', [Cl.bufferFromAscii(ns), Cl.bufferFromAscii(name), salt, zf(h)]);
      return {
        tx,
        events: (t: string, n: () => number) => [
          nftMint(t, n(), name, ns, w),
          namePrint(t, n(), w, name, ns, 'name-register', h),
        ],
      };
    };
    const regAlice = await register('B', 'alice', 'app', H.alice1);
    const regCarol = await register('C', 'carol', 'sub', H.carol1);
    const regEve = await register('E', 'eve', 'app', H.eve);
    const regOld = await register('F', 'old', 'app', H.old);
    Object.assign(TX, { regAlice: regAlice.tx, regCarol: regCarol.tx, regEve: regEve.tx, regOld: regOld.tx });
    const b5 = block('bns 5', b4.ref, [regAlice, regCarol, regEve, regOld]);
    // h6: updates: alice.app → zonefile 2; carol.sub → sub1 at seqn 1 (to D).
    TX.updAlice = await call('B', 'name-update', [Cl.bufferFromAscii('app'), Cl.bufferFromAscii('alice'), zf(H.alice2)]);
    TX.updCarol2 = await call('C', 'name-update', [Cl.bufferFromAscii('sub'), Cl.bufferFromAscii('carol'), zf(H.carol2)]);
    const b6b = block('bns 6', b5.ref, [
      { tx: TX.updAlice, events: (t, n) => [namePrint(t, n(), 'B', 'alice', 'app', 'name-update', H.alice2)] },
      { tx: TX.updCarol2, events: (t, n) => [namePrint(t, n(), 'C', 'carol', 'sub', 'name-update', H.carol2)] },
    ]);
    b6 = b6b.ref;
    // h7: alice.app goes to D, its zonefile cleared (0x); carol.sub tries sub1 at a lower seqn.
    TX.transfer = await call('B', 'name-transfer', [
      Cl.bufferFromAscii('app'),
      Cl.bufferFromAscii('alice'),
      Cl.standardPrincipal(ADDR.D),
      Cl.none(),
    ]);
    TX.updCarol3 = await call('C', 'name-update', [Cl.bufferFromAscii('sub'), Cl.bufferFromAscii('carol'), zf(H.carol3)]);
    const b7 = block('bns 7', b6b.ref, [
      {
        tx: TX.transfer,
        events: (t, n) => [
          nftTransfer(t, n(), 'alice', 'app', 'B', 'D'),
          namePrint(t, n(), 'B', 'alice', 'app', 'name-transfer', ''),
        ],
      },
      { tx: TX.updCarol3, events: (t, n) => [namePrint(t, n(), 'C', 'carol', 'sub', 'name-update', H.carol3)] },
    ]);
    // h8: D renews alice.app without a zonefile: the contract prints nothing, the lease restarts at 8.
    TX.renewal = await call('D', 'name-renewal', [
      Cl.bufferFromAscii('app'),
      Cl.bufferFromAscii('alice'),
      Cl.uint(40000),
      Cl.none(),
      Cl.none(),
    ]);
    const b8 = block('bns 8', b7.ref, [{ tx: TX.renewal, events: (t, n) => [stxBurn(t, n(), 'D', 40000n)] }]);
    // h9: E revokes eve.app.
    TX.revoke = await call('E', 'name-revoke', [Cl.bufferFromAscii('app'), Cl.bufferFromAscii('eve')]);
    const b9 = block('bns 9', b8.ref, [
      { tx: TX.revoke, events: (t, n) => [namePrint(t, n(), 'E', 'eve', 'app', 'name-revoke', '')] },
    ]);
    // h10…h14 empty; h15: G preorders; h16: old.app (expired after 15) registered again by G: the NFT moves F → G.
    let parent = b9.ref;
    const blocks = [b1, b2, b3, b4, b5, b6b, b7, b8, b9];
    for (let h = 10; h <= 14; h++) {
      const b = block(`bns ${h}`, parent);
      blocks.push(b);
      parent = b.ref;
    }
    TX.preOldG = await call('G', 'name-preorder', [Cl.bufferFromHex('cc'.repeat(20)), Cl.uint(1_000_000)]);
    const b15 = block('bns 15', parent, [{ tx: TX.preOldG, events: (t, n) => [stxBurn(t, n(), 'G', 1_000_000n)] }]);
    TX.regOldG = await call('G', 'name-register', [Cl.bufferFromAscii('app'), Cl.bufferFromAscii('old'), salt, zf(H.old)]);
    const b16 = block('bns 16', b15.ref, [
      {
        tx: TX.regOldG,
        events: (t, n) => [
          nftTransfer(t, n(), 'old', 'app', 'F', 'G'),
          namePrint(t, n(), 'G', 'old', 'app', 'name-register', H.old),
        ],
      },
    ]);
    blocks.push(b15, b16);
    tip = b16.ref;

    // carol.sub's first zonefile arrives before its block; alice's after theirs; eve's never does.
    events.push(['/attachments/new', [attachment(b5.ref, TX.regCarol, 'C', 'carol', 'sub', 'name-register', carolZone1)]]);
    for (const b of blocks) {
      events.push(['/new_block', b.body]);
      if (b === b5) {
        events.push(['/attachments/new', [attachment(b5.ref, TX.regAlice, 'B', 'alice', 'app', 'name-register', aliceZone1)]]);
      }
      if (b === b6b) {
        events.push([
          '/attachments/new',
          [
            attachment(b6, TX.updAlice, 'B', 'alice', 'app', 'name-update', aliceZone2),
            attachment(b6, TX.updCarol2, 'C', 'carol', 'sub', 'name-update', carolZone2),
          ],
        ]);
      }
      if (b === b7)
        events.push(['/attachments/new', [attachment(b7.ref, TX.updCarol3, 'C', 'carol', 'sub', 'name-update', carolZone3)]]);
      if (b === b5)
        events.push(['/attachments/new', [attachment(b5.ref, TX.regOld, 'F', 'old', 'app', 'name-register', oldZone)]]);
    }
    await postNodeEvents(sys, events);
    await sys.waitForCaughtUp();
    beforeReorg = await bnsDigest(sys);
  });
  afterAll(() => sys?.stop());

  it('stores every event without a dead letter', async () => {
    await expectNoDeadLetterSince(sys, mark);
  });

  it('lists the ready namespaces and their names, page by page', async () => {
    expect(await get(sys, '/v1/namespaces', '/v1/namespaces')).toEqual({ status: 200, body: { namespaces: ['app', 'sub'] } });
    expect(await get(sys, '/v1/namespaces/app/names', '/v1/namespaces/{tld}/names')).toEqual({
      status: 200,
      body: ['alice.app', 'eve.app', 'old.app'],
    });
    expect(await get(sys, '/v1/namespaces/sub/names?page=0', '/v1/namespaces/{tld}/names')).toEqual({
      status: 200,
      body: ['carol.sub'],
    });
    expect(await get(sys, '/v1/names', '/v1/names')).toEqual({
      status: 200,
      body: ['alice.app', 'carol.sub', 'eve.app', 'old.app'],
    });
  });

  it('answers a transferred and renewed name: new owner, zonefile cleared, lease from the renewal', async () => {
    expect(await get(sys, '/v1/names/alice.app', '/v1/names/{name}')).toEqual({
      status: 200,
      body: {
        address: ADDR.D,
        blockchain: 'stacks',
        expire_block: 18, // renewed at 8, lifetime 10
        grace_period: 5018,
        last_txid: TX.renewal!.txid,
        status: 'name-renewal',
        zonefile_hash: '',
      },
    });
    expect(await get(sys, '/v1/names/alice.app/zonefile', '/v1/names/{name}/zonefile')).toEqual({
      status: 404,
      body: { error: 'No such name or zonefile does not exist', message: expect.any(String) },
    });
    // Its earlier zonefiles stay reachable by hash.
    expect(await get(sys, `/v1/names/alice.app/zonefile/${H.alice1}`, '/v1/names/{name}/zonefile/{zonefile_hash}')).toEqual({
      status: 200,
      body: { zonefile: aliceZone1 },
    });
    expect(await get(sys, `/v1/names/alice.app/zonefile/0x${H.alice2}`, '/v1/names/{name}/zonefile/{zonefile_hash}')).toEqual({
      status: 200,
      body: { zonefile: aliceZone2 },
    });
    // old.app's zonefile is not alice's.
    expect((await get(sys, `/v1/names/alice.app/zonefile/${H.old}`, '/v1/names/{name}/zonefile/{zonefile_hash}')).status).toBe(
      404,
    );
  });

  it('answers a revoked name, and a name registered again by someone else after expiry', async () => {
    expect(await get(sys, '/v1/names/eve.app', '/v1/names/{name}')).toEqual({
      status: 200,
      body: {
        address: ADDR.E,
        blockchain: 'stacks',
        expire_block: 15,
        grace_period: 5015,
        last_txid: TX.revoke!.txid,
        status: 'name-revoke',
        zonefile_hash: '',
      },
    });
    expect(await get(sys, '/v1/names/old.app', '/v1/names/{name}')).toEqual({
      status: 200,
      body: {
        address: ADDR.G,
        blockchain: 'stacks',
        expire_block: 26,
        grace_period: 5026,
        last_txid: TX.regOldG!.txid,
        status: 'name-register',
        zonefile: oldZone, // the same zonefile hash as F's, which arrived at F's registration
        zonefile_hash: H.old,
      },
    });
  });

  it('answers a name with subdomains: the last zonefile, names that never expire', async () => {
    expect(await get(sys, '/v1/names/carol.sub', '/v1/names/{name}')).toEqual({
      status: 200,
      body: {
        address: ADDR.C,
        blockchain: 'stacks',
        expire_block: 0,
        grace_period: 0,
        last_txid: TX.updCarol3!.txid,
        status: 'name-update',
        zonefile: carolZone3,
        zonefile_hash: H.carol3,
      },
    });
    expect(await get(sys, '/v1/names/carol.sub/subdomains', '/v1/names/{name}/subdomains')).toEqual({
      status: 200,
      body: ['sub1.carol.sub', 'sub2.carol.sub', 'sub3.carol.sub'],
    });
  });

  it('resolves subdomains: a higher seqn moves one, a lower one is ignored, a Bitcoin-era owner in Stacks form', async () => {
    expect(await get(sys, '/v1/names/sub1.carol.sub', '/v1/names/{name}')).toEqual({
      status: 200,
      body: {
        address: ADDR.D,
        blockchain: 'stacks',
        last_txid: TX.updCarol2!.txid,
        status: 'registered_subdomain',
        zonefile: sub1v1,
        zonefile_hash: hash160(sub1v1),
      },
    });
    expect(await get(sys, '/v1/names/sub2.carol.sub', '/v1/names/{name}')).toEqual({
      status: 200,
      body: {
        address: b58ToC32(SUB2_BTC_OWNER),
        blockchain: 'stacks',
        last_txid: TX.regCarol!.txid,
        resolver: 'https://resolver.example',
        status: 'registered_subdomain',
        zonefile: sub2v0,
        zonefile_hash: hash160(sub2v0),
      },
    });
    expect(await get(sys, '/v1/names/sub3.carol.sub/zonefile', '/v1/names/{name}/zonefile')).toEqual({
      status: 200,
      body: { zonefile: sub3v0 },
    });
    expect(
      await get(sys, `/v1/names/sub1.carol.sub/zonefile/${hash160(sub1v0)}`, '/v1/names/{name}/zonefile/{zonefile_hash}'),
    ).toEqual({ status: 200, body: { zonefile: sub1v0 } });
    expect(await get(sys, '/v1/names/sub9.carol.sub', '/v1/names/{name}')).toEqual({
      status: 404,
      body: { error: 'cannot find subdomain sub9.carol.sub', message: 'cannot find subdomain sub9.carol.sub' },
    });
  });

  it('lists what each address holds now', async () => {
    const namesOf = async (who: Who) =>
      (await get(sys, `/v1/addresses/stacks/${ADDR[who]}`, '/v1/addresses/{blockchain}/{address}')).body;
    expect(await namesOf('D')).toEqual({ names: ['alice.app', 'sub1.carol.sub'] });
    expect(await namesOf('B')).toEqual({ names: [] }); // transferred away
    expect(await namesOf('C')).toEqual({ names: ['carol.sub', 'sub3.carol.sub'] }); // sub1 moved to D, sub2 is a Bitcoin-era owner's
    expect(await namesOf('E')).toEqual({ names: [] }); // revoked; its sub1 record had a lower seqn
    expect(await namesOf('F')).toEqual({ names: [] }); // expired, then registered by G
    expect(await namesOf('G')).toEqual({ names: ['old.app'] });
    expect(
      (await get(sys, `/v1/addresses/stacks/${b58ToC32(SUB2_BTC_OWNER)}`, '/v1/addresses/{blockchain}/{address}')).body,
    ).toEqual({
      names: ['sub2.carol.sub'],
    });
  });

  it('computes prices as the contract does', async () => {
    // get-namespace-price: tiers by length (1: 640000000000, 2–3: 64000000000, 4–7: 6400000000, 8+: 640000000).
    const nsPrice = async (ns: string) => (await get(sys, `/v2/prices/namespaces/${ns}`, '/v2/prices/namespaces/{tld}')).body;
    expect(await nsPrice('x')).toEqual({ units: 'STX', amount: '640000000000' });
    expect(await nsPrice('app')).toEqual({ units: 'STX', amount: '64000000000' });
    expect(await nsPrice('abcd')).toEqual({ units: 'STX', amount: '6400000000' });
    expect(await nsPrice('abcdefgh')).toEqual({ units: 'STX', amount: '640000000' });
    // get-name-price on app (base 4, coeff 250, buckets 6,5,4,3,2,1…, discounts 4/4): ((250 × 4^e) / d) × 10.
    const price = async (name: string) => (await get(sys, `/v2/prices/names/${name}`, '/v2/prices/names/{name}')).body;
    expect(await price('alice.app')).toEqual({ units: 'STX', amount: '40000' }); // len 5 → e 2: 250 × 16 × 10
    expect(await price('a.app')).toEqual({ units: 'STX', amount: '10240000' }); // e 6: 250 × 4096 × 10
    expect(await price('bcd.app')).toEqual({ units: 'STX', amount: '160000' }); // no vowel: e 4: 250 × 256 / 4 × 10
    expect(await price('b2.app')).toEqual({ units: 'STX', amount: '640000' }); // e 5: 250 × 1024 / 4 × 10
    // sub (base 2, coeff 3, buckets 15…0, non-alpha 2, no-vowel 5): the larger divisor applies.
    expect(await price('xyz.sub')).toEqual({ units: 'STX', amount: '245760' }); // y is a vowel: e 13: 3 × 8192 × 10
    expect(await price('b-c.sub')).toEqual({ units: 'STX', amount: '49150' }); // e 13, max(2, 5) = 5: 24576 / 5 = 4915
  });

  it('answers bad input with a 400 or 404, never a 5xx', async () => {
    const cases: Array<[string, string, number, string]> = [
      ['/v1/names?page=1', '/v1/names', 400, 'Invalid page'],
      ['/v1/names?page=-1', '/v1/names', 400, 'Invalid page'],
      ['/v1/names?page=abc', '/v1/names', 400, 'Invalid page'],
      ['/v1/namespaces/app/names?page=1', '/v1/namespaces/{tld}/names', 400, 'Invalid page'],
      ['/v1/namespaces/nope/names', '/v1/namespaces/{tld}/names', 400, 'No such namespace'],
      ['/v1/namespaces/NOPE/names', '/v1/namespaces/{tld}/names', 400, 'No such namespace'],
      ['/v1/names/Alice.app', '/v1/names/{name}', 400, 'Invalid name or subdomain'],
      ['/v1/names/alice', '/v1/names/{name}', 400, 'Invalid name or subdomain'],
      ['/v1/names/alice..app', '/v1/names/{name}', 400, 'Invalid name or subdomain'],
      ['/v1/names/a.b.c.d', '/v1/names/{name}', 400, 'Invalid name or subdomain'],
      [`/v1/names/${'a'.repeat(49)}.app`, '/v1/names/{name}', 400, 'Invalid name or subdomain'],
      ['/v1/names/al%20ice.app', '/v1/names/{name}', 400, 'Invalid name or subdomain'],
      ['/v1/names/nobody.app', '/v1/names/{name}', 404, 'cannot find name nobody.app'],
      ['/v1/names/nobody.app/zonefile', '/v1/names/{name}/zonefile', 404, 'No such name or zonefile does not exist'],
      ['/v1/names/alice.app/zonefile/xyz', '/v1/names/{name}/zonefile/{zonefile_hash}', 400, 'Invalid zonefile hash'],
      ['/v1/addresses/bitcoin/1abc', '/v1/addresses/{blockchain}/{address}', 400, 'Unsupported blockchain'],
      ['/v1/addresses/stacks/notanaddress', '/v1/addresses/{blockchain}/{address}', 400, 'Invalid address'],
      ['/v2/prices/namespaces/ABC', '/v2/prices/namespaces/{tld}', 400, 'Invalid namespace'],
      [`/v2/prices/namespaces/${'a'.repeat(21)}`, '/v2/prices/namespaces/{tld}', 400, 'Invalid namespace'],
      ['/v2/prices/names/alice', '/v2/prices/names/{name}', 400, 'Invalid name'],
      ['/v2/prices/names/alice.nope', '/v2/prices/names/{name}', 400, 'No such namespace'],
    ];
    for (const [path, template, status, error] of cases) {
      const res = await get(sys, path, template);
      expect({ path, status: res.status, error: (res.body as { error: string }).error }).toEqual({ path, status, error });
    }
  });

  describe('a reorg that removes the transfer', () => {
    let forkTip: BlockRef;

    beforeAll(async () => {
      // A fork from h6 (before the transfer) that ends higher than the tip (16): empty blocks h7…h17.
      const events: Array<[string, unknown]> = [];
      let parent = b6;
      for (let h = 7; h <= 17; h++) {
        const b = block(`bns fork ${h}`, parent);
        events.push(['/new_block', b.body]);
        parent = b.ref;
      }
      forkTip = parent;
      await postNodeEvents(sys, events);
      await sys.waitForCaughtUp();
    });

    it('gives the name back to its owner before the transfer, with its zonefile, and undoes the rest', async () => {
      const tipRow = await sys.db('chain_tip').first('index_block_hash');
      expect(tipRow?.index_block_hash).toBe(forkTip.index_block_hash);
      // No row of the orphaned blocks is left in the read models.
      for (const table of ['bns_namespaces', 'bns_names', 'bns_subdomains']) {
        const { rows } = await sys.db.raw<{ rows: Array<{ n: string }> }>(
          `SELECT count(*) AS n FROM ${table} r JOIN blocks b ON b.index_block_hash = r.index_block_hash WHERE NOT b.canonical`,
        );
        expect({ table, n: rows[0]!.n }).toEqual({ table, n: '0' });
      }
      expect(await get(sys, '/v1/names/alice.app', '/v1/names/{name}')).toEqual({
        status: 200,
        body: {
          address: ADDR.B,
          blockchain: 'stacks',
          expire_block: 15, // the renewal is gone too: registered at 5
          grace_period: 5015,
          last_txid: TX.updAlice!.txid,
          status: 'name-update',
          zonefile: aliceZone2,
          zonefile_hash: H.alice2,
        },
      });
      const eve = (await get(sys, '/v1/names/eve.app', '/v1/names/{name}')).body;
      expect(eve).toMatchObject({ status: 'name-register', address: ADDR.E, zonefile_hash: H.eve });
      expect(eve).not.toHaveProperty('zonefile'); // it never arrived
      expect((await get(sys, '/v1/names/eve.app/zonefile', '/v1/names/{name}/zonefile')).status).toBe(404);
      expect((await get(sys, '/v1/names/old.app', '/v1/names/{name}')).body).toMatchObject({ address: ADDR.F, expire_block: 15 });
      expect((await get(sys, '/v1/names/carol.sub', '/v1/names/{name}')).body).toMatchObject({ zonefile_hash: H.carol2 });
      // At the fork's tip (17) alice.app's lease (to 15) has ended: B holds it but it no longer resolves.
      const namesOf = async (who: Who) =>
        (await get(sys, `/v1/addresses/stacks/${ADDR[who]}`, '/v1/addresses/{blockchain}/{address}')).body;
      expect(await namesOf('B')).toEqual({ names: [] });
      expect(await namesOf('D')).toEqual({ names: ['sub1.carol.sub'] });
      expect(await namesOf('G')).toEqual({ names: [] });
    });

    it('brings the transfer back when the branch that has it wins again', async () => {
      const events: Array<[string, unknown]> = [];
      let parent = tip;
      for (let h = 17; h <= 18; h++) {
        const b = block(`bns main ${h}`, parent);
        events.push(['/new_block', b.body]);
        parent = b.ref;
      }
      await postNodeEvents(sys, events);
      await sys.waitForCaughtUp();
      const tipRow = await sys.db('chain_tip').first('index_block_hash', 'block_height');
      expect(tipRow).toEqual({ index_block_hash: parent.index_block_hash, block_height: 18 });
      expect(await get(sys, '/v1/names/alice.app', '/v1/names/{name}')).toEqual({
        status: 200,
        body: {
          address: ADDR.D,
          blockchain: 'stacks',
          expire_block: 18,
          grace_period: 5018,
          last_txid: TX.renewal!.txid,
          status: 'name-renewal',
          zonefile_hash: '',
        },
      });
      expect((await get(sys, '/v1/names/old.app', '/v1/names/{name}')).body).toMatchObject({ address: ADDR.G });
      expect((await get(sys, '/v1/names/carol.sub', '/v1/names/{name}')).body).toMatchObject({ zonefile_hash: H.carol3 });
      expect((await get(sys, '/v1/names/sub1.carol.sub', '/v1/names/{name}')).body).toMatchObject({ address: ADDR.D });
      const namesOf = async (who: Who) =>
        (await get(sys, `/v1/addresses/stacks/${ADDR[who]}`, '/v1/addresses/{blockchain}/{address}')).body;
      expect(await namesOf('D')).toEqual({ names: ['alice.app', 'sub1.carol.sub'] });
      // Exactly the rows the main chain had before the reorg (the two new blocks hold no BNS operation).
      expect(await bnsDigest(sys)).toEqual(beforeReorg);
      await expectNoDeadLetterSince(sys, mark);
    });
  });
});
