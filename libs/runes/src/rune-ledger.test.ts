import { beforeEach, describe, expect, it } from '@jest/globals';
import { addressFromScript, isP2trScript } from './address-from-script';
import type { BitcoinBlock, BlockInput, BlockTransaction } from './bitcoin-block';
import { concatBytes } from './concat-bytes';
import { U128_MAX } from './integer-limits';
import type { Network } from './network';
import { GENESIS_RUNE, type RuneEntry } from './rune-entry';
import { type BlockRuneEffects, type HeldRune, type RuneActivity, type RuneLedgerView, executeBlock } from './rune-ledger';
import { reservedRune, runeCommitment, runeFromName } from './rune-name';
import { Tag } from './runestone';
import { type EtchingSpec, RunestoneBuilder, pushData } from './runestone-builder';

/** An in-memory ledger: the state `executeBlock` reads, updated the way an indexer persists effects. */
class MemoryLedger implements RuneLedgerView {
  readonly runes = new Map<string, RuneEntry>();
  readonly names = new Map<bigint, string>();
  readonly balances = new Map<string, HeldRune[]>();
  readonly prevouts = new Map<string, { isP2tr: boolean; height: number }>();

  constructor(seed: readonly Readonly<RuneEntry>[] = []) {
    for (const entry of seed) this.addRune({ ...entry });
  }

  getRune(id: string) {
    return this.runes.get(id);
  }
  getRuneIdByName(rune: bigint) {
    return this.names.get(rune);
  }
  runeCount() {
    return this.runes.size;
  }
  inputBalances(txid: string, vout: number) {
    return this.balances.get(`${txid}:${vout}`) ?? [];
  }
  prevout(txid: string, vout: number) {
    return this.prevouts.get(`${txid}:${vout}`);
  }

  addRune(entry: RuneEntry) {
    this.runes.set(entry.id, entry);
    this.names.set(entry.rune, entry.id);
  }

  /** Persists a block's effects (and remembers all its outputs as prevouts). */
  apply(block: BitcoinBlock, effects: BlockRuneEffects) {
    for (const entry of effects.etchings) this.addRune({ ...entry });
    for (const { runeId, count } of effects.mints) this.runes.get(runeId)!.mints += count;
    for (const { runeId, amount } of effects.burned) this.runes.get(runeId)!.burned += amount;
    for (const output of effects.outputs) {
      this.balances.set(
        `${output.txid}:${output.vout}`,
        output.balances.map(({ runeId, amount }) => ({ runeId, amount, address: output.address })),
      );
    }
    for (const { txid, vout } of effects.spent) this.balances.delete(`${txid}:${vout}`);
    for (const tx of block.txs) {
      tx.outputs.forEach((output, vout) =>
        this.prevouts.set(`${tx.txid}:${vout}`, { isP2tr: isP2trScript(output.script), height: block.height }),
      );
    }
  }
}

const NETWORK: Network = 'regtest';
/** A distinct P2TR output script per key number. */
const p2tr = (key: number) => Uint8Array.of(0x51, 0x20, ...new Array<number>(32).fill(key));
const addr = (key: number) => addressFromScript(p2tr(key), NETWORK);
const P2PK = Uint8Array.from(Buffer.from(`21${'02'.padEnd(66, '3')}ac`, 'hex'));
const OP_RETURN = Uint8Array.of(0x6a, 0x04, 1, 2, 3, 4);
const txidOf = (height: number, index: number) =>
  `${height.toString(16).padStart(32, '0')}${index.toString(16).padStart(32, '0')}`;

interface TxSpec {
  inputs?: Array<Partial<BlockInput> & { txid: string; vout: number }>;
  outputs: Uint8Array[];
}

/** A block at `height`: a coinbase paying key 0, then `specs` as transactions 1, 2, … */
function makeBlock(height: number, specs: TxSpec[]): BitcoinBlock {
  const coinbase: BlockTransaction = {
    txid: txidOf(height, 0),
    index: 0,
    inputs: [{ txid: '0'.repeat(64), vout: 0xffff_ffff, witness: [], coinbase: true }],
    outputs: [{ value: 0n, script: p2tr(0) }],
  };
  const txs = specs.map((spec, i): BlockTransaction => ({
    txid: txidOf(height, i + 1),
    index: i + 1,
    inputs: (spec.inputs ?? []).map((input) => ({ witness: [], coinbase: false, ...input })),
    outputs: spec.outputs.map((script) => ({ value: 546n, script })),
  }));
  return {
    hash: `${height}`.padStart(64, 'f'),
    prevHash: '',
    height,
    timestamp: 1_700_000_000 + height,
    txs: [coinbase, ...txs],
  };
}

/** Executes and persists a block. */
function run(ledger: MemoryLedger, height: number, specs: TxSpec[], network: Network = NETWORK) {
  const block = makeBlock(height, specs);
  const effects = executeBlock(block, network, ledger);
  ledger.apply(block, effects);
  return { block, effects, txid: (index: number) => txidOf(height, index) };
}

/** A script-path witness whose tapscript pushes the commitment of `rune`. */
const commitWitness = (rune: bigint) => [
  Uint8Array.of(0x01),
  concatBytes([pushData(runeCommitment(rune)), Uint8Array.of(0x75, 0x51)]),
  Uint8Array.of(0xc0, ...new Array<number>(32).fill(9)),
];

/** A P2TR output confirmed at `height`, spent with a commitment to `rune`. */
function committedInput(ledger: MemoryLedger, rune: bigint, height: number, key = 1) {
  const txid = `c0${height.toString(16).padStart(62, '0')}`;
  ledger.prevouts.set(`${txid}:0`, { isP2tr: true, height });
  ledger.balances.delete(`${txid}:0`);
  return { txid, vout: 0, witness: commitWitness(rune), address: addr(key) };
}

const NAME = runeFromName('LEDGERTESTRUNE');
const row = (fields: Partial<RuneActivity> & Pick<RuneActivity, 'runeId' | 'operation' | 'txid' | 'txIndex'>): RuneActivity => ({
  address: null,
  receiverAddress: null,
  amount: null,
  vout: null,
  ...fields,
});
const rowsOf = (effects: BlockRuneEffects) => effects.activity;

/** A rune already in the ledger held by output `holder:0` (address of `key`). */
function seedHeld(ledger: MemoryLedger, holder: string, balances: Array<[string, bigint]>, key: number | null) {
  const address = key === null ? null : addr(key);
  ledger.balances.set(
    `${holder}:0`,
    balances.map(([runeId, amount]) => ({ runeId, amount, address })),
  );
  return { txid: holder, vout: 0 };
}

function seedRune(ledger: MemoryLedger, id: string, fields: Partial<RuneEntry> = {}) {
  const [block, tx] = id.split(':').map(Number) as [number, number];
  const entry: RuneEntry = {
    id,
    block,
    tx,
    etchingTxid: 'e'.repeat(64),
    timestamp: 0,
    number: ledger.runes.size,
    rune: runeFromName('SEEDEDRUNENAME') + BigInt(ledger.runes.size),
    spacers: 0,
    divisibility: 0,
    symbol: null,
    premine: 0n,
    terms: null,
    turbo: false,
    mints: 0n,
    burned: 0n,
    ...fields,
  };
  ledger.addRune(entry);
  return entry;
}

const holder = (n: number) => `a${n.toString(16).padStart(63, '0')}`;

describe('executeBlock: etching', () => {
  let ledger: MemoryLedger;
  beforeEach(() => {
    ledger = new MemoryLedger();
  });

  const etch = (spec: EtchingSpec, build = (b: RunestoneBuilder) => b) => build(new RunestoneBuilder().etching(spec)).build();

  it('creates the rune and gives the premine to the first non-OP_RETURN output', () => {
    const input = committedInput(ledger, NAME, 100);
    const { effects, txid } = run(ledger, 105, [
      { inputs: [input], outputs: [etch({ rune: NAME, premine: 1000n, divisibility: 2, spacers: 1, symbol: 'R' }), p2tr(2)] },
    ]);
    expect(effects.etchings).toEqual([
      {
        id: '105:1',
        block: 105,
        tx: 1,
        etchingTxid: txid(1),
        timestamp: 1_700_000_105,
        number: 0,
        rune: NAME,
        spacers: 1,
        divisibility: 2,
        symbol: 'R',
        premine: 1000n,
        terms: null,
        turbo: false,
        mints: 0n,
        burned: 0n,
      },
    ]);
    expect(effects.outputs).toEqual([
      { txid: txid(1), vout: 1, address: addr(2), balances: [{ runeId: '105:1', amount: 1000n }] },
    ]);
    expect(rowsOf(effects)).toEqual([
      row({ runeId: '105:1', operation: 'etching', txid: txid(1), txIndex: 1 }),
      row({ runeId: '105:1', operation: 'receive', address: addr(2), amount: 1000n, txid: txid(1), txIndex: 1, vout: 1 }),
    ]);
  });

  it('sends the premine by edict with id 0:0', () => {
    const input = committedInput(ledger, NAME, 100);
    const script = etch({ rune: NAME, premine: 1000n }, (b) => b.edict({ block: 0n, tx: 0 }, 600n, 2));
    const { effects, txid } = run(ledger, 105, [{ inputs: [input], outputs: [p2tr(2), script, p2tr(3)] }]);
    expect(effects.outputs.map((o) => [o.vout, o.balances])).toEqual([
      [0, [{ runeId: '105:1', amount: 400n }]],
      [2, [{ runeId: '105:1', amount: 600n }]],
    ]);
    expect(rowsOf(effects).map((r) => [r.operation, r.vout, r.amount])).toEqual([
      ['etching', null, null],
      ['receive', 2, 600n],
      ['receive', 0, 400n],
    ]);
    expect(effects.activity.every((r) => r.txid === txid(1))).toBe(true);
  });

  it('accepts a commitment with exactly 6 confirmations and refuses 5', () => {
    const young = committedInput(ledger, NAME, 101);
    expect(
      run(ledger, 105, [{ inputs: [young], outputs: [etch({ rune: NAME, premine: 5n }), p2tr(2)] }]).effects.etchings,
    ).toEqual([]);
    const old = committedInput(ledger, NAME, 100);
    expect(run(ledger, 105, [{ inputs: [old], outputs: [etch({ rune: NAME }), p2tr(2)] }]).effects.etchings).toHaveLength(1);
  });

  it('ignores an etching without a commitment, its premine and edicts', () => {
    const plain = { txid: 'b'.repeat(64), vout: 0 };
    ledger.prevouts.set(`${plain.txid}:0`, { isP2tr: true, height: 1 });
    const script = etch({ rune: NAME, premine: 5n }, (b) => b.edict({ block: 0n, tx: 0 }, 5n, 1));
    const { effects } = run(ledger, 105, [{ inputs: [plain], outputs: [script, p2tr(2)] }]);
    expect(effects).toEqual({ etchings: [], mints: [], burned: [], outputs: [], spent: [], activity: [] });
  });

  it('ignores a commitment spending a non-taproot output', () => {
    const input = committedInput(ledger, NAME, 100);
    ledger.prevouts.set(`${input.txid}:0`, { isP2tr: false, height: 100 });
    expect(run(ledger, 105, [{ inputs: [input], outputs: [etch({ rune: NAME }), p2tr(2)] }]).effects.etchings).toEqual([]);
  });

  it('ignores a commitment spending an output of the same block (1 confirmation)', () => {
    const { effects } = run(ledger, 105, [
      { outputs: [p2tr(1)] },
      { inputs: [{ txid: txidOf(105, 1), vout: 0, witness: commitWitness(NAME) }], outputs: [etch({ rune: NAME }), p2tr(2)] },
    ]);
    expect(effects.etchings).toEqual([]);
  });

  it('finds the tapscript before an annex', () => {
    const input = committedInput(ledger, NAME, 100);
    input.witness = [...input.witness, Uint8Array.of(0x50, 1, 2)];
    expect(run(ledger, 105, [{ inputs: [input], outputs: [etch({ rune: NAME }), p2tr(2)] }]).effects.etchings).toHaveLength(1);
  });

  it('throws when a committing input’s prevout is unknown (ord stops too)', () => {
    const input = { txid: 'd'.repeat(64), vout: 0, witness: commitWitness(NAME) };
    expect(() =>
      executeBlock(makeBlock(105, [{ inputs: [input], outputs: [etch({ rune: NAME }), p2tr(2)] }]), NETWORK, ledger),
    ).toThrow(/prevout/);
  });

  it('gives an etching without a name the reserved name of its id, no commitment needed', () => {
    const { effects } = run(ledger, 105, [{ outputs: [p2tr(2), p2tr(3), etch({ premine: 7n })] }, { outputs: [etch({})] }]);
    expect(effects.etchings.map((e) => [e.id, e.rune, e.number])).toEqual([
      ['105:1', reservedRune(105n, 1), 0],
      ['105:2', reservedRune(105n, 2), 1],
    ]);
    expect(effects.outputs).toEqual([
      { txid: txidOf(105, 1), vout: 0, address: addr(2), balances: [{ runeId: '105:1', amount: 7n }] },
    ]);
  });

  it('refuses a reserved name, a name below the minimum and a taken name', () => {
    const reserved = runeFromName('A'.repeat(27));
    const short = runeFromName('SHORT');
    seedRune(ledger, '50:1', { rune: NAME });
    const specs = [reserved, short, NAME].map((rune) => ({
      inputs: [committedInput(ledger, rune, 90)],
      outputs: [etch({ rune }), p2tr(2)],
    }));
    expect(run(ledger, 105, specs).effects.etchings).toEqual([]);
  });

  it('lets only the first of two etchings of one name in a block through', () => {
    const first = committedInput(ledger, NAME, 90);
    const second = { ...committedInput(ledger, NAME, 91), txid: `c1${'0'.repeat(62)}` };
    ledger.prevouts.set(`${second.txid}:0`, { isP2tr: true, height: 91 });
    const { effects } = run(ledger, 105, [
      { inputs: [first], outputs: [etch({ rune: NAME }), p2tr(2)] },
      { inputs: [second], outputs: [etch({ rune: NAME }), p2tr(2)] },
    ]);
    expect(effects.etchings.map((e) => e.id)).toEqual(['105:1']);
  });

  it('numbers runes after those already in the ledger', () => {
    seedRune(ledger, '10:1');
    seedRune(ledger, '10:2');
    const { effects } = run(ledger, 105, [{ outputs: [etch({})] }, { outputs: [etch({})] }]);
    expect(effects.etchings.map((e) => e.number)).toEqual([2, 3]);
  });

  it('creates a cenotaph’s named rune with its name only, and burns', () => {
    const input = committedInput(ledger, NAME, 100);
    const script = new RunestoneBuilder()
      .etching({
        rune: NAME,
        premine: 50n,
        divisibility: 3,
        spacers: 1,
        symbol: 'x',
        terms: { amount: 1n, cap: 10n },
        turbo: true,
      })
      .field(Tag.Cenotaph, 0n)
      .build();
    const { effects } = run(ledger, 105, [{ inputs: [input], outputs: [script, p2tr(2)] }]);
    expect(effects.etchings).toMatchObject([
      { id: '105:1', rune: NAME, premine: 0n, divisibility: 0, spacers: 0, symbol: null, terms: null, turbo: false },
    ]);
    expect(effects.outputs).toEqual([]);
    expect(rowsOf(effects).map((r) => r.operation)).toEqual(['etching']);
  });
});

describe('executeBlock: mints', () => {
  let ledger: MemoryLedger;
  const MINTABLE = '100:1';
  beforeEach(() => {
    ledger = new MemoryLedger();
    seedRune(ledger, MINTABLE, { terms: { amount: 10n, cap: 2n, heightStart: 110n, heightEnd: 120n } });
  });
  const mint = (id: string, build = (b: RunestoneBuilder) => b) => {
    const [block, tx] = id.split(':') as [string, string];
    return build(new RunestoneBuilder().mint({ block: BigInt(block), tx: Number(tx) })).build();
  };

  it('mints inside the window', () => {
    const { effects, txid } = run(ledger, 110, [{ outputs: [mint(MINTABLE), p2tr(2)] }]);
    expect(effects.mints).toEqual([{ runeId: MINTABLE, count: 1n }]);
    expect(effects.outputs).toEqual([
      { txid: txid(1), vout: 1, address: addr(2), balances: [{ runeId: MINTABLE, amount: 10n }] },
    ]);
    expect(rowsOf(effects)).toEqual([
      row({ runeId: MINTABLE, operation: 'mint', amount: 10n, txid: txid(1), txIndex: 1 }),
      row({ runeId: MINTABLE, operation: 'receive', address: addr(2), amount: 10n, txid: txid(1), txIndex: 1, vout: 1 }),
    ]);
  });

  it('does not mint before the start or at the (exclusive) end', () => {
    for (const height of [109, 120]) {
      const { effects } = run(ledger, height, [{ outputs: [mint(MINTABLE), p2tr(2)] }]);
      expect(effects.mints).toEqual([]);
      expect(effects.activity).toEqual([]);
    }
    expect(run(ledger, 119, [{ outputs: [mint(MINTABLE), p2tr(2)] }]).effects.mints).toEqual([{ runeId: MINTABLE, count: 1n }]);
  });

  it('stops at the cap, counting mints earlier in the block', () => {
    const { effects } = run(
      ledger,
      111,
      [0, 1, 2].map(() => ({ outputs: [mint(MINTABLE), p2tr(2)] })),
    );
    expect(effects.mints).toEqual([{ runeId: MINTABLE, count: 2n }]);
    expect(effects.outputs.map((o) => o.txid)).toEqual([txidOf(111, 1), txidOf(111, 2)]);
    expect(run(ledger, 112, [{ outputs: [mint(MINTABLE), p2tr(2)] }]).effects.mints).toEqual([]);
  });

  it('measures offsets from the etching block and takes the tighter bound', () => {
    seedRune(ledger, '200:3', { terms: { amount: 1n, cap: 100n, offsetStart: 5n, offsetEnd: 10n, heightStart: 206n } });
    const minted = (height: number) => run(ledger, height, [{ outputs: [mint('200:3'), p2tr(2)] }]).effects.mints.length;
    expect([205, 206, 209, 210].map(minted)).toEqual([0, 1, 1, 0]);
  });

  it('cannot mint without terms, without cap, or an unknown rune', () => {
    seedRune(ledger, '100:2', { terms: null });
    seedRune(ledger, '100:3', { terms: { amount: 5n } });
    const { effects } = run(
      ledger,
      115,
      ['100:2', '100:3', '99:9'].map((id) => ({ outputs: [mint(id), p2tr(2)] })),
    );
    expect(effects.mints).toEqual([]);
  });

  it('mints a rune etched earlier in the block, but not in its etching transaction', () => {
    const terms = { amount: 7n, cap: 5n };
    const { effects } = run(ledger, 130, [
      { outputs: [new RunestoneBuilder().etching({ terms }).mint({ block: 130n, tx: 1 }).build(), p2tr(2)] },
      { outputs: [mint('130:1'), p2tr(3)] },
    ]);
    expect(effects.etchings.map((e) => [e.id, e.mints])).toEqual([['130:1', 0n]]);
    expect(effects.mints).toEqual([{ runeId: '130:1', count: 1n }]);
    expect(effects.outputs).toEqual([
      { txid: txidOf(130, 2), vout: 1, address: addr(3), balances: [{ runeId: '130:1', amount: 7n }] },
    ]);
    expect(ledger.getRune('130:1')?.mints).toBe(1n);
  });

  it('mints the genesis rune on mainnet from activation', () => {
    const mainnet = new MemoryLedger([GENESIS_RUNE]);
    const before = executeBlock(makeBlock(839_999, [{ outputs: [mint('1:0'), p2tr(2)] }]), 'mainnet', mainnet);
    expect(before.activity).toEqual([]);
    const { effects } = run(mainnet, 840_000, [{ outputs: [mint('1:0'), p2tr(2)] }], 'mainnet');
    expect(effects.mints).toEqual([{ runeId: '1:0', count: 1n }]);
    expect(effects.outputs[0]?.balances).toEqual([{ runeId: '1:0', amount: 1n }]);
    expect(effects.outputs[0]?.address).toBe(addressFromScript(p2tr(2), 'mainnet'));
    expect(run(mainnet, 1_050_000, [{ outputs: [mint('1:0'), p2tr(2)] }], 'mainnet').effects.mints).toEqual([]);
  });

  it('applies the mainnet minimum name length at activation', () => {
    const mainnet = new MemoryLedger([GENESIS_RUNE]);
    const twelve = runeFromName('ZZZZZZZZZZZZ');
    const belowMinimum = runeFromName('ZZYZXBRKWXUZ');
    const specs = [belowMinimum, twelve].map((rune) => ({
      inputs: [committedInput(mainnet, rune, 839_990)],
      outputs: [new RunestoneBuilder().etching({ rune }).build(), p2tr(2)],
    }));
    const { effects } = run(mainnet, 840_000, specs, 'mainnet');
    expect(effects.etchings.map((e) => [e.id, e.rune, e.number])).toEqual([['840000:2', twelve, 1]]);
  });
});

describe('executeBlock: transfers', () => {
  let ledger: MemoryLedger;
  const X = '100:1';
  const Y = '100:2';
  beforeEach(() => {
    ledger = new MemoryLedger();
    seedRune(ledger, X);
    seedRune(ledger, Y, { terms: { amount: 9n, cap: 10n } });
  });
  const edicts = (...list: Array<[string, bigint, number]>) => {
    const builder = new RunestoneBuilder();
    for (const [id, amount, output] of list) {
      const [block, tx] = id.split(':') as [string, string];
      builder.edict({ block: BigInt(block), tx: Number(tx) }, amount, output);
    }
    return builder;
  };
  const balancesOf = (effects: BlockRuneEffects) =>
    Object.fromEntries(effects.outputs.map((o) => [o.vout, Object.fromEntries(o.balances.map((b) => [b.runeId, b.amount]))]));

  it('moves everything to the first non-OP_RETURN output without a runestone', () => {
    const input = seedHeld(
      ledger,
      holder(1),
      [
        [X, 100n],
        [Y, 5n],
      ],
      1,
    );
    const { effects, txid } = run(ledger, 150, [{ inputs: [input], outputs: [OP_RETURN, p2tr(2), p2tr(3)] }]);
    expect(balancesOf(effects)).toEqual({ 1: { [X]: 100n, [Y]: 5n } });
    expect(effects.spent).toEqual([{ txid: holder(1), vout: 0, spentByTxid: txid(1) }]);
    expect(ledger.inputBalances(holder(1), 0)).toEqual([]);
    expect(rowsOf(effects)).toEqual([
      row({ runeId: X, operation: 'receive', address: addr(2), amount: 100n, txid: txid(1), txIndex: 1, vout: 1 }),
      row({
        runeId: X,
        operation: 'send',
        address: addr(1),
        receiverAddress: addr(2),
        amount: 100n,
        txid: txid(1),
        txIndex: 1,
        vout: 1,
      }),
      row({ runeId: Y, operation: 'receive', address: addr(2), amount: 5n, txid: txid(1), txIndex: 1, vout: 1 }),
      row({
        runeId: Y,
        operation: 'send',
        address: addr(1),
        receiverAddress: addr(2),
        amount: 5n,
        txid: txid(1),
        txIndex: 1,
        vout: 1,
      }),
    ]);
  });

  it('sends an edict amount to one output and the rest to the default output, with exact rows', () => {
    const a = seedHeld(ledger, holder(1), [[X, 60n]], 1);
    const b = seedHeld(ledger, holder(2), [[X, 40n]], 2);
    const script = edicts([X, 70n, 1]).build();
    const { effects, txid } = run(ledger, 150, [{ inputs: [a, b], outputs: [p2tr(3), p2tr(4), script] }]);
    expect(balancesOf(effects)).toEqual({ 0: { [X]: 30n }, 1: { [X]: 70n } });
    const tx = { txid: txid(1), txIndex: 1 };
    expect(rowsOf(effects)).toEqual([
      row({ ...tx, runeId: X, operation: 'receive', address: addr(4), amount: 70n, vout: 1 }),
      row({ ...tx, runeId: X, operation: 'send', address: addr(1), receiverAddress: addr(4), amount: 60n, vout: 1 }),
      row({ ...tx, runeId: X, operation: 'send', address: addr(2), receiverAddress: addr(4), amount: 10n, vout: 1 }),
      row({ ...tx, runeId: X, operation: 'receive', address: addr(3), amount: 30n, vout: 0 }),
      row({ ...tx, runeId: X, operation: 'send', address: addr(2), receiverAddress: addr(3), amount: 30n, vout: 0 }),
    ]);
    expect(effects.spent.map((s) => s.txid)).toEqual([holder(1), holder(2)]);
  });

  it('caps an edict at the balance and reads amount 0 as everything', () => {
    const input = seedHeld(
      ledger,
      holder(1),
      [
        [X, 10n],
        [Y, 10n],
      ],
      1,
    );
    const script = edicts([X, 25n, 1], [Y, 0n, 2]).build();
    const { effects } = run(ledger, 150, [{ inputs: [input], outputs: [p2tr(2), p2tr(3), p2tr(4), script] }]);
    expect(balancesOf(effects)).toEqual({ 1: { [X]: 10n }, 2: { [Y]: 10n } });
  });

  it('spreads amount 0 evenly over non-OP_RETURN outputs, remainder to the first', () => {
    const input = seedHeld(ledger, holder(1), [[X, 11n]], 1);
    const script = edicts([X, 0n, 5]).build();
    const { effects } = run(ledger, 150, [{ inputs: [input], outputs: [p2tr(2), script, p2tr(3), OP_RETURN, p2tr(4)] }]);
    expect(balancesOf(effects)).toEqual({ 0: { [X]: 4n }, 2: { [X]: 4n }, 4: { [X]: 3n } });
    expect(effects.burned).toEqual([]);
  });

  it('spreads a non-zero amount while it lasts', () => {
    const input = seedHeld(ledger, holder(1), [[X, 10n]], 1);
    const { effects } = run(ledger, 150, [{ inputs: [input], outputs: [p2tr(2), p2tr(3), p2tr(4), edicts([X, 4n, 4]).build()] }]);
    expect(balancesOf(effects)).toEqual({ 0: { [X]: 4n }, 1: { [X]: 4n }, 2: { [X]: 2n } });
    const small = seedHeld(ledger, holder(2), [[X, 5n]], 1);
    const { effects: second } = run(ledger, 151, [
      { inputs: [small], outputs: [p2tr(2), p2tr(3), p2tr(4), edicts([X, 4n, 4]).build()] },
    ]);
    expect(balancesOf(second)).toEqual({ 0: { [X]: 4n }, 1: { [X]: 1n } });
  });

  it('ignores edicts for runes the transaction does not hold, and 0:0 without an etching', () => {
    const input = seedHeld(ledger, holder(1), [[X, 10n]], 1);
    const script = edicts(['0:0', 5n, 1], [Y, 5n, 1], ['777:1', 5n, 1]).build();
    const { effects } = run(ledger, 150, [{ inputs: [input], outputs: [p2tr(2), p2tr(3), script] }]);
    expect(balancesOf(effects)).toEqual({ 0: { [X]: 10n } });
  });

  it('sends leftovers to the pointer', () => {
    const input = seedHeld(ledger, holder(1), [[X, 10n]], 1);
    const script = edicts([X, 3n, 0]).pointer(2).build();
    const { effects } = run(ledger, 150, [{ inputs: [input], outputs: [p2tr(2), script, p2tr(3)] }]);
    expect(balancesOf(effects)).toEqual({ 0: { [X]: 3n }, 2: { [X]: 7n } });
  });

  it('burns what an edict or the pointer sends to an OP_RETURN output, naming the sender', () => {
    const input = seedHeld(ledger, holder(1), [[X, 10n]], 1);
    const script = edicts([X, 4n, 1]).pointer(2).build();
    const { effects, txid } = run(ledger, 150, [{ inputs: [input], outputs: [p2tr(2), script, OP_RETURN] }]);
    expect(effects.outputs).toEqual([]);
    expect(effects.burned).toEqual([{ runeId: X, amount: 10n }]);
    expect(rowsOf(effects)).toEqual([
      row({ runeId: X, operation: 'burn', address: addr(1), amount: 4n, txid: txid(1), txIndex: 1, vout: 1 }),
      row({ runeId: X, operation: 'burn', address: addr(1), amount: 6n, txid: txid(1), txIndex: 1, vout: 2 }),
    ]);
    expect(ledger.getRune(X)?.burned).toBe(10n);
  });

  it('burns everything when every output is OP_RETURN', () => {
    const input = seedHeld(ledger, holder(1), [[X, 10n]], 1);
    const { effects, txid } = run(ledger, 150, [{ inputs: [input], outputs: [OP_RETURN] }]);
    expect(effects.burned).toEqual([{ runeId: X, amount: 10n }]);
    expect(rowsOf(effects)).toEqual([
      row({ runeId: X, operation: 'burn', address: addr(1), amount: 10n, txid: txid(1), txIndex: 1 }),
    ]);
  });

  it('a cenotaph burns its inputs and its mint, which still counts', () => {
    const input = seedHeld(ledger, holder(1), [[X, 50n]], 1);
    const script = new RunestoneBuilder()
      .mint({ block: 100n, tx: 2 })
      .edict({ block: 100n, tx: 1 }, 50n, 1)
      .field(24n, 1n)
      .build();
    const { effects, txid } = run(ledger, 150, [{ inputs: [input], outputs: [script, p2tr(2)] }]);
    expect(effects.mints).toEqual([{ runeId: Y, count: 1n }]);
    expect(effects.outputs).toEqual([]);
    expect(effects.burned).toEqual([
      { runeId: X, amount: 50n },
      { runeId: Y, amount: 9n },
    ]);
    expect(rowsOf(effects)).toEqual([
      row({ runeId: Y, operation: 'mint', amount: 9n, txid: txid(1), txIndex: 1 }),
      row({ runeId: X, operation: 'burn', address: addr(1), amount: 50n, txid: txid(1), txIndex: 1 }),
      row({ runeId: Y, operation: 'burn', amount: 9n, txid: txid(1), txIndex: 1 }),
    ]);
    expect(ledger.getRune(Y)).toMatchObject({ mints: 1n, burned: 9n });
  });

  it('keeps runes in an address-less (P2PK) output, which can be spent later', () => {
    const input = seedHeld(ledger, holder(1), [[X, 10n]], 1);
    const first = run(ledger, 150, [{ inputs: [input], outputs: [P2PK] }]);
    expect(first.effects.outputs).toEqual([
      { txid: first.txid(1), vout: 0, address: null, balances: [{ runeId: X, amount: 10n }] },
    ]);
    expect(first.effects.burned).toEqual([]);
    expect(rowsOf(first.effects).map((r) => [r.operation, r.address, r.receiverAddress])).toEqual([
      ['receive', null, null],
      ['send', addr(1), null],
    ]);
    const second = run(ledger, 151, [{ inputs: [{ txid: first.txid(1), vout: 0 }], outputs: [p2tr(5)] }]);
    expect(second.effects.spent).toEqual([{ txid: first.txid(1), vout: 0, spentByTxid: second.txid(1) }]);
    expect(rowsOf(second.effects)).toEqual([
      row({ runeId: X, operation: 'receive', address: addr(5), amount: 10n, txid: second.txid(1), txIndex: 1, vout: 0 }),
      row({
        runeId: X,
        operation: 'send',
        address: null,
        receiverAddress: addr(5),
        amount: 10n,
        txid: second.txid(1),
        txIndex: 1,
        vout: 0,
      }),
    ]);
  });

  it('spends outputs created earlier in the same block', () => {
    const input = seedHeld(ledger, holder(1), [[X, 10n]], 1);
    const { effects, txid } = run(ledger, 150, [
      { inputs: [input], outputs: [p2tr(2)] },
      { inputs: [{ txid: txidOf(150, 1), vout: 0 }], outputs: [p2tr(3)] },
    ]);
    expect(effects.outputs.map((o) => [o.txid, o.address])).toEqual([
      [txid(1), addr(2)],
      [txid(2), addr(3)],
    ]);
    expect(effects.spent).toEqual([
      { txid: holder(1), vout: 0, spentByTxid: txid(1) },
      { txid: txid(1), vout: 0, spentByTxid: txid(2) },
    ]);
    expect(
      rowsOf(effects)
        .filter((r) => r.txIndex === 2)
        .map((r) => [r.operation, r.address, r.receiverAddress]),
    ).toEqual([
      ['receive', addr(3), null],
      ['send', addr(2), addr(3)],
    ]);
    expect(ledger.balances.get(`${txid(2)}:0`)).toEqual([{ runeId: X, amount: 10n, address: addr(3) }]);
    expect(ledger.balances.has(`${txid(1)}:0`)).toBe(false);
  });

  it('orders a transaction’s rows: mint, etching, edicts (as encoded, sorted by id), leftovers', () => {
    const input = seedHeld(ledger, holder(1), [[X, 10n]], 1);
    const script = new RunestoneBuilder()
      .etching({ premine: 100n })
      .mint({ block: 100n, tx: 2 })
      .edict({ block: 0n, tx: 0 }, 40n, 2)
      .edict({ block: 100n, tx: 2 }, 0n, 1)
      .build();
    const { effects } = run(ledger, 150, [{ inputs: [input], outputs: [p2tr(2), p2tr(3), p2tr(4), script] }]);
    expect(rowsOf(effects).map((r) => [r.operation, r.runeId, r.vout, r.amount, r.address])).toEqual([
      ['mint', Y, null, 9n, null],
      ['etching', '150:1', null, null, null],
      ['receive', '150:1', 2, 40n, addr(4)],
      ['receive', Y, 1, 9n, addr(3)],
      ['receive', X, 0, 10n, addr(2)],
      ['send', X, 0, 10n, addr(1)],
      ['receive', '150:1', 0, 60n, addr(2)],
    ]);
  });

  it('does nothing before the first rune height', () => {
    const mainnet = new MemoryLedger([GENESIS_RUNE]);
    const block = makeBlock(839_999, [{ outputs: [new RunestoneBuilder().etching({}).build(), p2tr(1)] }]);
    expect(executeBlock(block, 'mainnet', mainnet)).toEqual({
      etchings: [],
      mints: [],
      burned: [],
      outputs: [],
      spent: [],
      activity: [],
    });
  });

  it('handles u128::MAX balances', () => {
    const input = seedHeld(ledger, holder(1), [[X, U128_MAX]], 1);
    const { effects } = run(ledger, 150, [{ inputs: [input], outputs: [p2tr(2), p2tr(3), edicts([X, 0n, 3]).build()] }]);
    expect(balancesOf(effects)).toEqual({ 0: { [X]: U128_MAX / 2n + 1n }, 1: { [X]: U128_MAX / 2n } });
  });
});

describe('executeBlock: senders', () => {
  it('gives send rows only to the parts that came from inputs, also to the same address', () => {
    const ledger = new MemoryLedger();
    seedRune(ledger, '100:2', { terms: { amount: 9n, cap: 10n } });
    const input = seedHeld(ledger, holder(1), [['100:2', 5n]], 1);
    const script = new RunestoneBuilder().mint({ block: 100n, tx: 2 }).edict({ block: 100n, tx: 2 }, 7n, 1).build();
    const { effects, txid } = run(ledger, 150, [{ inputs: [input], outputs: [p2tr(1), p2tr(1), script] }]);
    const tx = { txid: txid(1), txIndex: 1, runeId: '100:2' };
    expect(rowsOf(effects)).toEqual([
      row({ ...tx, operation: 'mint', amount: 9n }),
      row({ ...tx, operation: 'receive', address: addr(1), amount: 7n, vout: 1 }),
      row({ ...tx, operation: 'send', address: addr(1), receiverAddress: addr(1), amount: 5n, vout: 1 }),
      row({ ...tx, operation: 'receive', address: addr(1), amount: 7n, vout: 0 }),
    ]);
  });
});
