import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { testInfra, expectMessage } from '@bda/test-support';
import {
  addressFromScript,
  parseSpacedRune,
  RESERVED_RUNE,
  reservedRune,
  runeFromName,
  RunestoneBuilder,
  runeToName,
} from '@bda/runes';
import {
  BitcoinBlockBuilder,
  type BuiltBlock,
  commitWitness,
  opReturnScript,
  p2pkScript,
  p2trScript,
  p2wpkhScript,
} from '@bda/runes/testing';
import { fetchRunes, validatedRunesResponses } from '@bda/api/testing';
import { TestSystem } from '../support/test-system';

/**
 * The rune activity endpoint end to end on regtest: blocks built here are posted to the observer, go over the bus
 * to the indexer, and are read back through the gateway with exact rows and balances — etchings (with premine,
 * without commitment, with a too young commitment, with a reserved name, without a name), open mints inside and
 * outside their window and past the cap, edicts to one output / spread / amount 0, a pointer, runes sent to
 * OP_RETURN, a cenotaph burning its inputs and its mint, runes held by a P2PK output and spent, and a reorg.
 */

const addr = (key: number) => addressFromScript(p2trScript(key), 'regtest')!;
const fund = (n: number) => `${n.toString(16).padStart(2, '0')}`.repeat(32);

const ALPHA = parseSpacedRune('ALPHA•RUNE•TEST');
const BRAVO = runeFromName('BRAVORUNETEST');
const CHARLIE = runeFromName('CHARLIERUNEXX');
const DELTA = runeFromName('DELTARUNETEST');
const ECHO = runeFromName('ECHORUNETESTS');
const FOXTROT = runeFromName('FOXTROTRUNEXX');
const UNNAMED = runeToName(reservedRune(6n, 8));

class Chain {
  readonly blocks: BuiltBlock[] = [];
  block(fill: (b: BitcoinBlockBuilder) => void = () => {}, tag = '', parent?: BuiltBlock): BuiltBlock {
    const tip = parent ?? this.blocks[this.blocks.length - 1];
    const b = new BitcoinBlockBuilder({ prevHash: tip?.hash ?? '00'.repeat(32), height: tip ? tip.height + 1 : 1, tag });
    fill(b);
    const built = b.build();
    if (!parent) this.blocks.push(built);
    return built;
  }
}

/** [operation, rune name, address, receiver, amount, tx_index, vout] */
type Row = [string, string, string | null, string | null, string | null, number, number | null];
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are schema-validated JSON that assertions read loosely
const rowsOf = (body: { results: Array<Record<string, any>> }): Row[] =>
  body.results.map((r) => [
    r.operation,
    r.rune.name,
    r.address,
    r.receiver_address,
    r.amount,
    r.location.tx_index,
    r.location.vout,
  ]);

describe('rune activity end to end (regtest, observer → bus → indexer → api → gateway)', () => {
  let sys: TestSystem;
  const chain = new Chain();
  const tx: Record<string, string> = {};
  let replaced12: BuiltBlock;
  let after12: BuiltBlock;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are schema-validated JSON that assertions read loosely
  const get = <T = any>(path: string) => fetchRunes<T>(sys.gatewayUrl, path);

  async function post(block: BuiltBlock, asRawBytes = false): Promise<void> {
    const res = asRawBytes
      ? await fetch(`${sys.observerUrl}/new_bitcoin_block?height=${block.height}`, {
          method: 'POST',
          headers: { 'content-type': 'application/octet-stream' },
          body: Buffer.from(block.hex, 'hex'),
        })
      : await fetch(`${sys.observerUrl}/new_bitcoin_block`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ block_height: block.height, raw_block: block.hex }),
        });
    expect(res.status).toBe(200);
  }

  beforeAll(async () => {
    // h1: commit outputs (P2TR) for the names etched at h6; no runestones.
    chain.block((b) => {
      tx.c1 = b.tx({ inputs: [{ txid: fund(0xf0), vout: 0 }], outputs: [p2trScript(101)] });
      tx.c2 = b.tx({ inputs: [{ txid: fund(0xf0), vout: 1 }], outputs: [p2trScript(102)] });
      tx.c3 = b.tx({ inputs: [{ txid: fund(0xf0), vout: 2 }], outputs: [p2trScript(103)] });
      tx.c4 = b.tx({ inputs: [{ txid: fund(0xf0), vout: 3 }], outputs: [p2trScript(104)] });
      tx.c5 = b.tx({ inputs: [{ txid: fund(0xf0), vout: 4 }], outputs: [p2trScript(105)] });
      tx.c6 = b.tx({ inputs: [{ txid: fund(0xf0), vout: 5 }], outputs: [p2trScript(106)] });
    });
    chain.block();
    chain.block();
    chain.block();
    // h5: DELTA's commitment: only 2 confirmations at h6.
    chain.block((b) => {
      tx.c8 = b.tx({ inputs: [{ txid: fund(0xf0), vout: 7 }], outputs: [p2trScript(108)] });
    });
    // h6: etchings.
    chain.block((b) => {
      const etch = (commit: string, witness: Uint8Array[], runestone: RunestoneBuilder, out: number) =>
        b.tx({ inputs: [{ txid: commit, vout: 0, witness }], outputs: [runestone.build(), p2trScript(out)] });
      tx.alpha = etch(
        tx.c1!,
        commitWitness(ALPHA.rune),
        new RunestoneBuilder().etching({
          rune: ALPHA.rune,
          spacers: ALPHA.spacers,
          divisibility: 2,
          symbol: 'α',
          premine: 100_000n,
        }),
        1,
      );
      tx.bravo = etch(
        tx.c2!,
        commitWitness(BRAVO),
        new RunestoneBuilder().etching({ rune: BRAVO, terms: { amount: 50n, cap: 2n, offsetStart: 1n, offsetEnd: 4n } }),
        2,
      );
      tx.echo = etch(
        tx.c3!,
        commitWitness(ECHO),
        new RunestoneBuilder().etching({ rune: ECHO, terms: { amount: 7n, cap: 10n, heightStart: 8n, heightEnd: 9n } }),
        3,
      );
      tx.foxtrot = etch(
        tx.c4!,
        commitWitness(FOXTROT),
        new RunestoneBuilder().etching({ rune: FOXTROT, terms: { amount: 9n, cap: 100n } }),
        4,
      );
      // A reserved name (27 A's), committed to: ignored.
      etch(tx.c5!, commitWitness(RESERVED_RUNE), new RunestoneBuilder().etching({ rune: RESERVED_RUNE, premine: 1n }), 5);
      // No commitment to CHARLIE (the tapscript pushes another name): ignored.
      etch(
        tx.c6!,
        commitWitness(runeFromName('ZZZZZZZZZZZZZ')),
        new RunestoneBuilder().etching({ rune: CHARLIE, premine: 1n }),
        6,
      );
      // DELTA's commitment is 2 blocks old: ignored.
      etch(tx.c8!, commitWitness(DELTA), new RunestoneBuilder().etching({ rune: DELTA, premine: 1n }), 7);
      // No name: gets a reserved one (6:8).
      tx.unnamed = b.tx({
        inputs: [{ txid: fund(0xf0), vout: 8 }],
        outputs: [new RunestoneBuilder().etching({ premine: 5n }).build(), p2trScript(8)],
      });
      // BRAVO's window opens at 7: not yet.
      b.tx({
        inputs: [{ txid: fund(0xf0), vout: 9 }],
        outputs: [new RunestoneBuilder().mint({ block: 6n, tx: 2 }).build(), p2trScript(9)],
      });
    });
    // h7: mints.
    chain.block((b) => {
      const mint = (vout: number, id: number, out: number) =>
        b.tx({
          inputs: [{ txid: fund(0xf1), vout }],
          outputs: [new RunestoneBuilder().mint({ block: 6n, tx: id }).build(), p2trScript(out)],
        });
      mint(0, 2, 11);
      mint(1, 2, 12);
      mint(2, 3, 13); // ECHO before its window (8)
    });
    // h8: past the cap, inside a window, edicts.
    chain.block((b) => {
      b.tx({
        inputs: [{ txid: fund(0xf1), vout: 3 }],
        outputs: [new RunestoneBuilder().mint({ block: 6n, tx: 2 }).build(), p2trScript(14)],
      });
      b.tx({
        inputs: [{ txid: fund(0xf1), vout: 4 }],
        outputs: [new RunestoneBuilder().mint({ block: 6n, tx: 3 }).build(), p2trScript(15)],
      });
      const A = { block: 6n, tx: 1 };
      tx.t1 = b.tx({
        inputs: [{ txid: tx.alpha!, vout: 1 }],
        outputs: [p2trScript(21), p2trScript(22), new RunestoneBuilder().edict(A, 30_000n, 1).build()],
      });
      tx.t2 = b.tx({
        inputs: [{ txid: tx.t1, vout: 0 }],
        outputs: [p2trScript(23), p2trScript(24), p2trScript(25), new RunestoneBuilder().edict(A, 0n, 4).build()],
      });
      tx.t3 = b.tx({
        inputs: [{ txid: tx.t1, vout: 1 }],
        outputs: [p2trScript(26), p2trScript(27), new RunestoneBuilder().edict(A, 0n, 1).build()],
      });
      tx.t4 = b.tx({
        inputs: [{ txid: tx.t2, vout: 0 }],
        outputs: [p2trScript(28), p2trScript(29), p2trScript(30), new RunestoneBuilder().edict(A, 10_000n, 4).build()],
      });
    });
    // h9: a pointer, an edict to OP_RETURN, ECHO after its window.
    chain.block((b) => {
      b.tx({
        inputs: [{ txid: tx.t2!, vout: 1 }],
        outputs: [p2trScript(31), new RunestoneBuilder().pointer(2).build(), p2trScript(32)],
      });
      b.tx({
        inputs: [{ txid: tx.t2!, vout: 2 }],
        outputs: [p2trScript(33), opReturnScript(), new RunestoneBuilder().edict({ block: 6n, tx: 1 }, 1_000n, 1).build()],
      });
      b.tx({
        inputs: [{ txid: fund(0xf2), vout: 0 }],
        outputs: [new RunestoneBuilder().mint({ block: 6n, tx: 3 }).build(), p2trScript(34)],
      });
    });
    // h10: a cenotaph (unknown even tag 126) that spends ALPHA and mints FOXTROT: both burned.
    chain.block((b) => {
      b.tx({
        inputs: [{ txid: tx.t3!, vout: 1 }],
        outputs: [new RunestoneBuilder().mint({ block: 6n, tx: 4 }).field(126n, 0n).build(), p2trScript(35)],
      });
    });
    // h11: to a P2PK output (no address); h12: spent from it.
    chain.block((b) => {
      tx.p2pk = b.tx({
        inputs: [{ txid: tx.t4!, vout: 0 }],
        outputs: [p2pkScript(1), new RunestoneBuilder().edict({ block: 6n, tx: 1 }, 0n, 0).build()],
      });
    });
    chain.block((b) => {
      tx.fromP2pk = b.tx({ inputs: [{ txid: tx.p2pk!, vout: 0 }], outputs: [p2wpkhScript(36), p2trScript(36)] });
    });
    // h13: no runes at all.
    chain.block();
    // The replacement of h12 (a reorg of depth 2) and a block on top of it.
    const h11 = chain.blocks[10]!;
    replaced12 = chain.block(
      (b) => {
        tx.fromP2pkB = b.tx({ inputs: [{ txid: tx.p2pk!, vout: 0 }], outputs: [p2trScript(37)] });
      },
      'b',
      h11,
    );
    after12 = chain.block(() => {}, 'b', replaced12);

    sys = await TestSystem.start({
      bus: 'postgres',
      serverUrl: testInfra().databaseUrl,
      kafkaBrokers: testInfra().kafkaBrokers,
      env: { BITCOIN_NETWORK: 'regtest', RATE_LIMIT_ENABLED: 'false' },
    });
    for (const block of chain.blocks) await post(block, block.height === 7);
    await sys.waitForCaughtUp();
  });
  afterAll(() => sys?.stop());

  it('serves the etchings block: premine, named and unnamed etchings; ignores reserved, uncommitted and too young names', async () => {
    const h6 = chain.blocks[5]!;
    const { status, body } = await get(`/runes/v1/blocks/6/activity`);
    expect(status).toBe(200);
    expect(body.total).toBe(7);
    expect(rowsOf(body)).toEqual([
      ['etching', 'ALPHARUNETEST', null, null, null, 1, null],
      ['receive', 'ALPHARUNETEST', addr(1), null, '1000.00', 1, 1],
      ['etching', 'BRAVORUNETEST', null, null, null, 2, null],
      ['etching', 'ECHORUNETESTS', null, null, null, 3, null],
      ['etching', 'FOXTROTRUNEXX', null, null, null, 4, null],
      ['etching', UNNAMED, null, null, null, 8, null],
      ['receive', UNNAMED, addr(8), null, '5', 8, 1],
    ]);
    expect(body.results[1]).toEqual({
      rune: { id: '6:1', number: 0, name: 'ALPHARUNETEST', spaced_name: 'ALPHA•RUNE•TEST' },
      address: addr(1),
      receiver_address: null,
      amount: '1000.00',
      operation: 'receive',
      location: {
        block_hash: `0x${h6.hash}`,
        block_height: 6,
        tx_id: `0x${tx.alpha}`,
        tx_index: 1,
        vout: 1,
        output: `0x${tx.alpha}:1`,
        timestamp: h6.timestamp,
      },
    });
    const etchings = await get('/runes/v1/etchings');
    expect(etchings.body.total).toBe(5);
    expect(etchings.body.results.map((e: { spaced_name: string; number: number }) => [e.number, e.spaced_name])).toEqual([
      [4, UNNAMED],
      [3, 'FOXTROTRUNEXX'],
      [2, 'ECHORUNETESTS'],
      [1, 'BRAVORUNETEST'],
      [0, 'ALPHA•RUNE•TEST'],
    ]);
    for (const name of ['CHARLIERUNEXX', 'DELTARUNETEST', runeToName(RESERVED_RUNE)]) {
      await expectMessage(name, async () => expect((await get(`/runes/v1/etchings/${name}`)).status).toBe(404));
    }
  });

  it('counts open mints only inside their window and below the cap', async () => {
    expect(rowsOf((await get('/runes/v1/blocks/7/activity')).body)).toEqual([
      ['mint', 'BRAVORUNETEST', null, null, '50', 1, null],
      ['receive', 'BRAVORUNETEST', addr(11), null, '50', 1, 1],
      ['mint', 'BRAVORUNETEST', null, null, '50', 2, null],
      ['receive', 'BRAVORUNETEST', addr(12), null, '50', 2, 1],
    ]);
    const bravo = (await get('/runes/v1/etchings/BRAVORUNETEST')).body;
    expect(bravo.supply).toMatchObject({
      total_mints: '2',
      minted: '100',
      mint_percentage: '100.0000',
      mintable: false,
      current: '100',
    });
    expect(bravo.mint_terms).toEqual({
      amount: '50',
      cap: '2',
      height_start: null,
      height_end: null,
      offset_start: 1,
      offset_end: 4,
    });
    const echo = (await get('/runes/v1/etchings/6:3')).body;
    expect(echo.supply).toMatchObject({ total_mints: '1', minted: '7', mintable: false });
    expect((await get('/runes/v1/blocks/9/activity?operation=mint')).body.total).toBe(0); // ECHO after its window
  });

  it('moves runes by edict to one output, spread over all outputs, and with amount 0', async () => {
    const { body } = await get('/runes/v1/blocks/8/activity?limit=60');
    expect(body.total).toBe(20);
    const A = 'ALPHARUNETEST';
    expect(rowsOf(body)).toEqual([
      ['mint', 'ECHORUNETESTS', null, null, '7', 2, null],
      ['receive', 'ECHORUNETESTS', addr(15), null, '7', 2, 1],
      // edict of 300.00 to output 1, the rest (700.00) to the first output
      ['receive', A, addr(22), null, '300.00', 3, 1],
      ['send', A, addr(1), addr(22), '300.00', 3, 1],
      ['receive', A, addr(21), null, '700.00', 3, 0],
      ['send', A, addr(1), addr(21), '700.00', 3, 0],
      // amount 0 spread over the three outputs: the remainder goes to the first
      ['receive', A, addr(23), null, '233.34', 4, 0],
      ['send', A, addr(21), addr(23), '233.34', 4, 0],
      ['receive', A, addr(24), null, '233.33', 4, 1],
      ['send', A, addr(21), addr(24), '233.33', 4, 1],
      ['receive', A, addr(25), null, '233.33', 4, 2],
      ['send', A, addr(21), addr(25), '233.33', 4, 2],
      // amount 0 to one output: all of it
      ['receive', A, addr(27), null, '300.00', 5, 1],
      ['send', A, addr(22), addr(27), '300.00', 5, 1],
      // 100.00 to each output while it lasts
      ['receive', A, addr(28), null, '100.00', 6, 0],
      ['send', A, addr(23), addr(28), '100.00', 6, 0],
      ['receive', A, addr(29), null, '100.00', 6, 1],
      ['send', A, addr(23), addr(29), '100.00', 6, 1],
      ['receive', A, addr(30), null, '33.34', 6, 2],
      ['send', A, addr(23), addr(30), '33.34', 6, 2],
    ]);
    const sends = await get('/runes/v1/blocks/8/activity?operation=send&offset=2&limit=3');
    expect(sends.body.total).toBe(9);
    expect(rowsOf(sends.body).map((r) => r[6])).toEqual([0, 1, 2]);
    const both = await get('/runes/v1/blocks/8/activity?operation=mint,send&operation=receive&offset=19&limit=60');
    expect(both.body.total).toBe(20);
    expect(rowsOf(both.body)).toEqual([['send', A, addr(23), addr(30), '33.34', 6, 2]]);
  });

  it('follows a pointer and burns what is sent to OP_RETURN', async () => {
    expect(rowsOf((await get('/runes/v1/blocks/9/activity')).body)).toEqual([
      ['receive', 'ALPHARUNETEST', addr(32), null, '233.33', 1, 2],
      ['send', 'ALPHARUNETEST', addr(24), addr(32), '233.33', 1, 2],
      ['burn', 'ALPHARUNETEST', addr(25), null, '10.00', 2, 1],
      ['receive', 'ALPHARUNETEST', addr(33), null, '223.33', 2, 0],
      ['send', 'ALPHARUNETEST', addr(25), addr(33), '223.33', 2, 0],
    ]);
  });

  it('burns a cenotaph inputs and its mint', async () => {
    expect(rowsOf((await get('/runes/v1/blocks/10/activity')).body)).toEqual([
      ['mint', 'FOXTROTRUNEXX', null, null, '9', 1, null],
      ['burn', 'ALPHARUNETEST', addr(27), null, '300.00', 1, null],
      ['burn', 'FOXTROTRUNEXX', null, null, '9', 1, null],
    ]);
    const foxtrot = (await get('/runes/v1/etchings/FOXTROTRUNEXX')).body;
    expect(foxtrot.supply).toMatchObject({ total_mints: '1', minted: '9', burned: '9', total_burns: '1', current: '0' });
  });

  it('lets a P2PK output hold runes (null address) and spend them', async () => {
    expect(rowsOf((await get('/runes/v1/blocks/11/activity')).body)).toEqual([
      ['receive', 'ALPHARUNETEST', null, null, '100.00', 1, 0],
      ['send', 'ALPHARUNETEST', addr(28), null, '100.00', 1, 0],
    ]);
    const p2wpkh36 = addressFromScript(p2wpkhScript(36), 'regtest');
    expect(rowsOf((await get('/runes/v1/blocks/12/activity')).body)).toEqual([
      ['receive', 'ALPHARUNETEST', p2wpkh36, null, '100.00', 1, 0],
      ['send', 'ALPHARUNETEST', null, p2wpkh36, '100.00', 1, 0],
    ]);
    expect((await get(`/runes/v1/transactions/0x${tx.fromP2pk}/activity`)).body.total).toBe(2);
  });

  it('answers empty blocks with total 0, unknown blocks with 404 and bad parameters with 400', async () => {
    for (const h of [1, 13])
      expect((await get(`/runes/v1/blocks/${h}/activity`)).body).toEqual({ limit: 20, offset: 0, total: 0, results: [] });
    expect((await get(`/runes/v1/blocks/${chain.blocks[12]!.hash.toUpperCase()}/activity`)).body.total).toBe(0);
    expect((await get('/runes/v1/blocks/14/activity')).status).toBe(404);
    expect((await get(`/runes/v1/blocks/0x${replaced12.hash}/activity`)).status).toBe(404); // not posted yet
    for (const [path, param] of [
      ['/runes/v1/blocks/x1/activity', 'block'],
      ['/runes/v1/blocks/8/activity?limit=61', 'query parameter limit'],
      ['/runes/v1/blocks/8/activity?offset=-5', 'query parameter offset'],
      ['/runes/v1/blocks/8/activity?operation=transfer', 'query parameter operation'],
    ]) {
      const { status, body } = await get(path!);
      expectMessage(path, () => expect(status).toBe(400));
      expectMessage(body.message, () => expect(body.message.startsWith(`${param}: `)).toBe(true));
    }
  });

  it('replaces a block on a reorg: rows, balances and supply follow the new chain', async () => {
    const alphaBefore = (await get('/runes/v1/etchings/ALPHARUNETEST/holders')).body;
    expect(alphaBefore.results.map((h: { address: string }) => h.address)).toContain(
      addressFromScript(p2wpkhScript(36), 'regtest'),
    );
    await post(replaced12);
    await post(after12);
    await sys.waitForCaughtUp();
    expect((await get('/runes/v1/')).body).toMatchObject({ block_height: 13, block_hash: `0x${after12.hash}` });
    expect(rowsOf((await get('/runes/v1/blocks/12/activity')).body)).toEqual([
      ['receive', 'ALPHARUNETEST', addr(37), null, '100.00', 1, 0],
      ['send', 'ALPHARUNETEST', null, addr(37), '100.00', 1, 0],
    ]);
    expect((await get(`/runes/v1/blocks/0x${chain.blocks[11]!.hash}/activity`)).status).toBe(404);
    expect((await get(`/runes/v1/blocks/${chain.blocks[12]!.hash}/activity`)).status).toBe(404);
    expect((await get(`/runes/v1/transactions/${tx.fromP2pk}/activity`)).body.total).toBe(0);
    const holders = (await get('/runes/v1/etchings/ALPHA.RUNE.TEST/holders')).body;
    const tie = [addr(29), addr(37)].sort();
    expect(holders).toEqual({
      limit: 20,
      offset: 0,
      total: 5,
      results: [
        { address: addr(32), balance: '233.33' },
        { address: addr(33), balance: '223.33' },
        { address: tie[0], balance: '100.00' },
        { address: tie[1], balance: '100.00' },
        { address: addr(30), balance: '33.34' },
      ],
    });
    const alpha = (await get('/runes/v1/etchings/6:1')).body;
    expect(alpha.supply).toMatchObject({
      premine: '1000.00',
      burned: '310.00',
      current: '690.00',
      total_burns: '2',
      total_mints: '0',
    });
    expect(alpha).toMatchObject({ spaced_name: 'ALPHA•RUNE•TEST', symbol: 'α', divisibility: 2 });
    const p2wpkh36 = addressFromScript(p2wpkhScript(36), 'regtest')!;
    expect((await get(`/runes/v1/addresses/${p2wpkh36}/balances`)).body.total).toBe(0);
    expect((await get(`/runes/v1/addresses/${p2wpkh36}/activity`)).body.total).toBe(0);
    expect((await get(`/runes/v1/addresses/${addr(37)}/balances`)).body.results).toEqual([
      {
        rune: { id: '6:1', number: 0, name: 'ALPHARUNETEST', spaced_name: 'ALPHA•RUNE•TEST' },
        address: addr(37),
        balance: '100.00',
      },
    ]);
    // addr 1: one receive (premine), two sends — newest first.
    const history = (await get(`/runes/v1/etchings/6:1/activity/${addr(1)}`)).body;
    expect(history.results.map((r: { operation: string; amount: string }) => [r.operation, r.amount])).toEqual([
      ['send', '700.00'],
      ['send', '300.00'],
      ['receive', '1000.00'],
    ]);
    expect((await get(`/runes/v1/etchings/ALPHARUNETEST/holders/${addr(1)}`)).status).toBe(404);
    expect((await get(`/runes/v1/etchings/ALPHARUNETEST/holders/${addr(32)}`)).body).toEqual({
      address: addr(32),
      balance: '233.33',
    });
    expect((await get('/runes/v1/etchings/ALPHARUNETEST/activity?limit=1')).body.total).toBe(30);
  });

  it('dead-letters a block that leaves a gap and keeps going', async () => {
    const gap = new BitcoinBlockBuilder({ prevHash: after12.hash, height: 15 }).build();
    await post(gap);
    await sys.waitForCaughtUp();
    const dead: Array<{ reason: string }> = await sys.db('dead_letters').where({ topic: 'bitcoin.blocks' }).select('reason');
    expect(dead.map((d) => d.reason)).toEqual([expect.stringContaining('leaves a gap')]);
    const next = new BitcoinBlockBuilder({ prevHash: after12.hash, height: 14 }).build();
    await post(next);
    await sys.waitForCaughtUp();
    expect((await get('/runes/v1/')).body.block_height).toBe(14);
    expect(validatedRunesResponses()).toBeGreaterThan(40);
  });
});
