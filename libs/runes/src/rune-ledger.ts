import { addressFromScript, isOpReturnScript, isP2trScript } from './address-from-script';
import type { BitcoinBlock, BlockInput, BlockTransaction } from './bitcoin-block';
import { type Network, firstRuneHeight } from './network';
import { type RuneEntry, mintableAmount } from './rune-entry';
import { formatRuneId } from './rune-id';
import { isReservedRune, minimumAtHeight, reservedRune, runeCommitment } from './rune-name';
import { type Artifact, type Runestone, decipherRunestone } from './runestone';
import { scriptInstructions } from './script-instructions';

/** Runes held by a spent output, with that output's address (`null` when it has none). */
export interface HeldRune {
  runeId: string;
  amount: bigint;
  address: string | null;
}

/**
 * The ledger state as of the end of the previous block, which the indexer prefetches for a block.
 * {@link executeBlock} never writes to it: it layers the block's own changes on top.
 */
export interface RuneLedgerView {
  getRune(id: string): RuneEntry | undefined;
  getRuneIdByName(rune: bigint): string | undefined;
  /** How many runes exist (genesis included): the next etching gets this number. */
  runeCount(): number;
  /** Runes held by an unspent output (empty when none). Only asked for outputs of earlier blocks. */
  inputBalances(txid: string, vout: number): HeldRune[];
  /**
   * The output an input spends, for the etching commitment check: whether it is P2TR and the
   * height of the block that created it. Only asked for outputs of earlier blocks, and only for
   * inputs whose tapscript pushes the commitment of a name being etched. Must be known: a missing
   * prevout throws (ord stops indexing too).
   */
  prevout(txid: string, vout: number): { isP2tr: boolean; height: number } | undefined;
}

export type RuneOperation = 'etching' | 'mint' | 'burn' | 'send' | 'receive';

/**
 * One effect of a transaction on one rune (the rows rune-activity APIs serve):
 * - `etching`: addresses, amount and vout `null` (a premine shows up as a `receive`);
 * - `mint`: amount = the terms amount; addresses and vout `null`;
 * - `receive`: address = the receiving output's, amount = what it received, vout = that output;
 * - `send`: address = the spent output's, receiverAddress = the receiving output's, amount = what
 *   left that input for this receive, vout = the receiving output;
 * - `burn`: address = the spent output's (`null` for minted or premined runes), amount burned,
 *   vout = the OP_RETURN output it was sent to, or `null` (cenotaph, nowhere to go).
 * Outputs and inputs without an address take part with `null` addresses.
 */
export interface RuneActivity {
  runeId: string;
  operation: RuneOperation;
  address: string | null;
  receiverAddress: string | null;
  amount: bigint | null;
  txid: string;
  txIndex: number;
  vout: number | null;
}

export interface RuneBalance {
  runeId: string;
  amount: bigint;
}

/** A new output holding runes; balances sorted by rune id. */
export interface RuneOutput {
  txid: string;
  vout: number;
  address: string | null;
  balances: RuneBalance[];
}

/** An output holding runes that an input of this block spent. */
export interface SpentRuneOutput {
  txid: string;
  vout: number;
  spentByTxid: string;
}

/**
 * What a block did to the ledger. To persist: insert `etchings` (as created: mints and burned
 * 0), then add `mints` and `burned` to the rune totals (they cover runes etched in this block as
 * well), insert `outputs` and mark `spent` (an output created and spent within the block appears
 * in both).
 */
export interface BlockRuneEffects {
  etchings: RuneEntry[];
  mints: Array<{ runeId: string; count: bigint }>;
  burned: RuneBalance[];
  outputs: RuneOutput[];
  spent: SpentRuneOutput[];
  /** In transaction order; see {@link executeBlock} for the order within a transaction. */
  activity: RuneActivity[];
}

/** Ord confirms a commitment when `height - commitHeight + 1 >= 6`. */
const COMMIT_CONFIRMATIONS = 6;

/**
 * Executes every transaction of a block in order, as ord's rune updater does, over `view`
 * plus what the block itself has done so far: outputs created earlier in the block can be spent,
 * runes etched earlier can be minted (not by their etching transaction) and names etched earlier
 * are taken, mint counts accumulate. Blocks below the network's first rune height do nothing.
 *
 * Per transaction (a coinbase too):
 * 1. the runes of all spent outputs become unallocated, kept in input order;
 * 2. a mint (also a cenotaph's) of a mintable rune counts one mint and adds the terms amount;
 * 3. an etching (a cenotaph's too, with its name only) creates the rune if its name is free:
 *    at least the minimum for the height, not reserved, not taken, committed to by a tapscript
 *    push in an input spending a P2TR output with ≥ 6 confirmations; no name → a reserved one.
 *    A runestone adds the premine;
 * 4. a runestone's edicts, in order: id 0:0 is this transaction's etching; `output == n`
 *    spreads over all non-OP_RETURN outputs (amount 0: evenly, remainder one each to the first;
 *    otherwise `min(amount, left)` each), else the output gets `amount` (0: all) capped at what
 *    is left;
 * 5. what is left goes to the pointer, else the first non-OP_RETURN output, else is burned; a
 *    cenotaph burns all of it instead of 4 and 5;
 * 6. whatever reaches an OP_RETURN output is burned.
 *
 * Activity rows of a transaction, in this order: `mint`, `etching`, then one group per
 * allocation in the order of steps 4 and 5 (edicts in order, a spread in output order, leftovers
 * per rune in order of first appearance: inputs, mint, premine). Unallocated runes are consumed
 * first in, first out, so each allocation knows which inputs it came from: to a normal output
 * it is a `receive` followed by one `send` per input that contributed (in input order; minted
 * and premined runes have no sender, so no `send`); to an OP_RETURN output, or burned by a
 * cenotaph or for lack of outputs, it is one `burn` per contribution (sender `null` for minted
 * or premined runes).
 */
export function executeBlock(block: BitcoinBlock, network: Network, view: RuneLedgerView): BlockRuneEffects {
  const executor = new BlockExecutor(block, network, view);
  if (block.height >= firstRuneHeight(network)) {
    for (const tx of block.txs) executor.executeTransaction(tx);
  }
  return executor.effects();
}

/** A part of a transaction's unallocated balance of one rune, and where it came from. */
interface Contribution {
  amount: bigint;
  /** From a spent output (not minted or premined). */
  fromInput: boolean;
  address: string | null;
}

/** The unallocated runes of one transaction: per rune, contributions consumed first in, first out. */
class Unallocated {
  private readonly byRune = new Map<string, Contribution[]>();

  add(runeId: string, contribution: Contribution): void {
    if (contribution.amount === 0n) return;
    const queue = this.byRune.get(runeId);
    if (queue) queue.push(contribution);
    else this.byRune.set(runeId, [contribution]);
  }

  /** Runes in order of first appearance. */
  runes(): string[] {
    return [...this.byRune.keys()];
  }

  balance(runeId: string): bigint {
    return (this.byRune.get(runeId) ?? []).reduce((sum, c) => sum + c.amount, 0n);
  }

  /** Removes `amount` (at most the balance) from the front; returns the contributions taken. */
  take(runeId: string, amount: bigint): Contribution[] {
    const queue = this.byRune.get(runeId) ?? [];
    const taken: Contribution[] = [];
    let rest = amount;
    while (rest > 0n && queue.length > 0) {
      const head = queue[0]!;
      const part = head.amount < rest ? head.amount : rest;
      taken.push({ ...head, amount: part });
      rest -= part;
      head.amount -= part;
      if (head.amount === 0n) queue.shift();
    }
    return taken;
  }
}

interface CreatedOutput {
  address: string | null;
  balances: Map<string, bigint>;
}

class BlockExecutor {
  private readonly minimum: bigint;
  private readonly blockTxs: Map<string, BlockTransaction>;
  /** Runes etched in this block, by id, in etching order. */
  private readonly etched = new Map<string, RuneEntry>();
  private readonly etchedNames = new Map<bigint, string>();
  private readonly mintCounts = new Map<string, bigint>();
  private readonly burned = new Map<string, bigint>();
  /** Rune-holding outputs created in this block and not yet spent, by `txid:vout`. */
  private readonly unspent = new Map<string, CreatedOutput>();
  private readonly outputs: RuneOutput[] = [];
  private readonly spent: SpentRuneOutput[] = [];
  private readonly activity: RuneActivity[] = [];

  constructor(
    private readonly block: BitcoinBlock,
    private readonly network: Network,
    private readonly view: RuneLedgerView,
  ) {
    this.minimum = minimumAtHeight(network, block.height);
    this.blockTxs = new Map(block.txs.map((tx) => [tx.txid, tx]));
  }

  effects(): BlockRuneEffects {
    return {
      etchings: [...this.etched.values()],
      mints: [...this.mintCounts].map(([runeId, count]) => ({ runeId, count })),
      burned: [...this.burned].map(([runeId, amount]) => ({ runeId, amount })),
      outputs: this.outputs,
      spent: this.spent,
      activity: this.activity,
    };
  }

  executeTransaction(tx: BlockTransaction): void {
    const artifact = decipherRunestone(tx.outputs);
    const unallocated = new Unallocated();
    for (const input of tx.inputs) {
      for (const held of this.spend(input, tx.txid)) {
        unallocated.add(held.runeId, { amount: held.amount, fromInput: true, address: held.address });
      }
    }
    if (!artifact) {
      new Allocation(this, tx, unallocated).leftovers(undefined);
      return;
    }

    if (artifact.mint) {
      const runeId = formatRuneId(artifact.mint);
      const amount = this.mint(runeId);
      if (amount !== undefined) {
        unallocated.add(runeId, { amount, fromInput: false, address: null });
        this.record(tx, { runeId, operation: 'mint', amount, vout: null });
      }
    }

    const etched = this.etch(tx, artifact);
    if (etched) this.record(tx, { runeId: etched.id, operation: 'etching', amount: null, vout: null });

    const allocation = new Allocation(this, tx, unallocated);
    if (artifact.type === 'cenotaph') {
      allocation.burnAll();
      return;
    }
    if (etched) unallocated.add(etched.id, { amount: etched.premine, fromInput: false, address: null });
    allocation.edicts(artifact, etched?.id);
    allocation.leftovers(artifact.pointer);
  }

  /** Appends an activity row of `tx`. */
  record(
    tx: BlockTransaction,
    row: Pick<RuneActivity, 'runeId' | 'operation' | 'amount' | 'vout'> &
      Partial<Pick<RuneActivity, 'address' | 'receiverAddress'>>,
  ): void {
    this.activity.push({
      address: null,
      receiverAddress: null,
      ...row,
      txid: tx.txid,
      txIndex: tx.index,
    });
  }

  burn(runeId: string, amount: bigint): void {
    this.burned.set(runeId, (this.burned.get(runeId) ?? 0n) + amount);
  }

  /** Stores the runes credited to a transaction's outputs. */
  createOutput(tx: BlockTransaction, vout: number, address: string | null, balances: Map<string, bigint>): void {
    this.unspent.set(`${tx.txid}:${vout}`, { address, balances });
    const sorted = [...balances]
      .map(([runeId, amount]) => ({ runeId, amount }))
      .sort((a, b) => compareRuneIds(a.runeId, b.runeId));
    this.outputs.push({ txid: tx.txid, vout, address, balances: sorted });
  }

  address(script: Uint8Array): string | null {
    return addressFromScript(script, this.network);
  }

  private spend(input: BlockInput, spentByTxid: string): HeldRune[] {
    if (input.coinbase) return [];
    let held: HeldRune[];
    if (this.blockTxs.has(input.txid)) {
      const key = `${input.txid}:${input.vout}`;
      const created = this.unspent.get(key);
      this.unspent.delete(key);
      held = created ? [...created.balances].map(([runeId, amount]) => ({ runeId, amount, address: created.address })) : [];
    } else {
      held = this.view.inputBalances(input.txid, input.vout);
    }
    if (held.length > 0) this.spent.push({ txid: input.txid, vout: input.vout, spentByTxid });
    return held;
  }

  private rune(runeId: string): RuneEntry | undefined {
    const entry = this.etched.get(runeId) ?? this.view.getRune(runeId);
    if (!entry) return undefined;
    return { ...entry, mints: entry.mints + (this.mintCounts.get(runeId) ?? 0n) };
  }

  /** Counts one mint and returns its amount, or `undefined` when the rune is not mintable now. */
  private mint(runeId: string): bigint | undefined {
    const entry = this.rune(runeId);
    const amount = entry && mintableAmount(entry, this.block.height);
    if (amount === undefined) return undefined;
    this.mintCounts.set(runeId, (this.mintCounts.get(runeId) ?? 0n) + 1n);
    return amount;
  }

  /** Creates the rune an artifact etches, if it etches one and its name is valid. */
  private etch(tx: BlockTransaction, artifact: Artifact): RuneEntry | undefined {
    let name: bigint | undefined;
    if (artifact.type === 'runestone') {
      if (!artifact.etching) return undefined;
      name = artifact.etching.rune;
    } else {
      // A cenotaph etches only when it names its rune.
      if (artifact.etching === undefined) return undefined;
      name = artifact.etching;
    }
    const height = this.block.height;
    let rune: bigint;
    if (name === undefined) {
      rune = reservedRune(BigInt(height), tx.index);
    } else {
      if (name < this.minimum || isReservedRune(name) || this.isTaken(name) || !this.commits(tx, name)) {
        return undefined;
      }
      rune = name;
    }
    const etching = artifact.type === 'runestone' ? artifact.etching : undefined;
    const entry: RuneEntry = {
      id: `${height}:${tx.index}`,
      block: height,
      tx: tx.index,
      etchingTxid: tx.txid,
      timestamp: this.block.timestamp,
      number: this.view.runeCount() + this.etched.size,
      rune,
      // A cenotaph's rune keeps only its name: no spacers, symbol, premine or terms.
      spacers: etching?.spacers ?? 0,
      divisibility: etching?.divisibility ?? 0,
      symbol: etching?.symbol ?? null,
      premine: etching?.premine ?? 0n,
      terms: etching?.terms ?? null,
      turbo: etching?.turbo ?? false,
      mints: 0n,
      burned: 0n,
    };
    this.etched.set(entry.id, entry);
    this.etchedNames.set(rune, entry.id);
    return entry;
  }

  private isTaken(rune: bigint): boolean {
    return this.etchedNames.has(rune) || this.view.getRuneIdByName(rune) !== undefined;
  }

  /**
   * Whether some input's tapscript pushes the name's commitment while spending a P2TR output
   * with at least 6 confirmations (ord's `tx_commits_to_rune`). Coinbase inputs spend nothing.
   */
  private commits(tx: BlockTransaction, rune: bigint): boolean {
    const commitment = runeCommitment(rune);
    for (const input of tx.inputs) {
      if (input.coinbase) continue;
      const script = tapscript(input.witness);
      if (!script) continue;
      for (const instruction of scriptInstructions(script)) {
        if (instruction === 'truncated') break;
        if (!('push' in instruction) || !bytesEqual(instruction.push, commitment)) continue;
        const prevout = this.prevout(input);
        if (prevout.isP2tr && this.block.height - prevout.height + 1 >= COMMIT_CONFIRMATIONS) return true;
      }
    }
    return false;
  }

  private prevout(input: BlockInput): { isP2tr: boolean; height: number } {
    const inBlock = this.blockTxs.get(input.txid);
    if (inBlock) {
      const output = inBlock.outputs[input.vout];
      return { isP2tr: output !== undefined && isP2trScript(output.script), height: this.block.height };
    }
    const prevout = this.view.prevout(input.txid, input.vout);
    if (!prevout) throw new Error(`prevout ${input.txid}:${input.vout} unknown to the ledger view`);
    return prevout;
  }
}

/** Moves one transaction's unallocated runes to its outputs (or burns them), recording activity. */
class Allocation {
  private readonly credited = new Map<number, Map<string, bigint>>();
  private readonly opReturn: boolean[];
  private readonly addresses = new Map<number, string | null>();

  constructor(
    private readonly executor: BlockExecutor,
    private readonly tx: BlockTransaction,
    private readonly unallocated: Unallocated,
  ) {
    this.opReturn = tx.outputs.map((output) => isOpReturnScript(output.script));
  }

  edicts(runestone: Runestone, etchedId: string | undefined): void {
    const outputCount = this.tx.outputs.length;
    for (const edict of runestone.edicts) {
      const isEtching = edict.id.block === 0n && edict.id.tx === 0;
      const runeId = isEtching ? etchedId : formatRuneId(edict.id);
      if (runeId === undefined) continue;
      if (edict.output !== outputCount) {
        const left = this.unallocated.balance(runeId);
        this.move(runeId, edict.amount === 0n || edict.amount > left ? left : edict.amount, edict.output);
        continue;
      }
      const destinations = this.opReturn.flatMap((isOpReturn, vout) => (isOpReturn ? [] : [vout]));
      if (destinations.length === 0) continue;
      if (edict.amount === 0n) {
        const count = BigInt(destinations.length);
        const balance = this.unallocated.balance(runeId);
        const share = balance / count;
        const remainder = balance % count;
        destinations.forEach((vout, i) => this.move(runeId, BigInt(i) < remainder ? share + 1n : share, vout));
      } else {
        for (const vout of destinations) {
          const left = this.unallocated.balance(runeId);
          this.move(runeId, edict.amount < left ? edict.amount : left, vout);
        }
      }
    }
  }

  /** Step 5: everything left to the pointer, else the first non-OP_RETURN output, else burned. */
  leftovers(pointer: number | undefined): void {
    const firstNormal = this.opReturn.indexOf(false);
    const target = pointer ?? (firstNormal >= 0 ? firstNormal : undefined);
    for (const runeId of this.unallocated.runes()) {
      const amount = this.unallocated.balance(runeId);
      if (target === undefined) this.burnUnallocated(runeId, amount);
      else this.move(runeId, amount, target);
    }
    this.writeOutputs();
  }

  /** A cenotaph: every unallocated rune is burned. */
  burnAll(): void {
    for (const runeId of this.unallocated.runes()) {
      this.burnUnallocated(runeId, this.unallocated.balance(runeId));
    }
  }

  private burnUnallocated(runeId: string, amount: bigint): void {
    for (const part of this.unallocated.take(runeId, amount)) this.burnPart(runeId, part, null);
  }

  private burnPart(runeId: string, part: Contribution, vout: number | null): void {
    this.executor.burn(runeId, part.amount);
    this.executor.record(this.tx, { runeId, operation: 'burn', address: part.address, amount: part.amount, vout });
  }

  /** Moves `amount` of a rune to output `vout`: a receive and its sends, or burns at OP_RETURN. */
  private move(runeId: string, amount: bigint, vout: number): void {
    if (amount === 0n) return;
    const parts = this.unallocated.take(runeId, amount);
    if (this.opReturn[vout]) {
      for (const part of parts) this.burnPart(runeId, part, vout);
      return;
    }
    const balances = this.credited.get(vout) ?? new Map<string, bigint>();
    this.credited.set(vout, balances);
    balances.set(runeId, (balances.get(runeId) ?? 0n) + amount);
    const receiver = this.address(vout);
    this.executor.record(this.tx, { runeId, operation: 'receive', address: receiver, amount, vout });
    for (const part of parts) {
      if (!part.fromInput) continue;
      this.executor.record(this.tx, {
        runeId,
        operation: 'send',
        address: part.address,
        receiverAddress: receiver,
        amount: part.amount,
        vout,
      });
    }
  }

  private writeOutputs(): void {
    const vouts = [...this.credited.keys()].sort((a, b) => a - b);
    for (const vout of vouts) {
      this.executor.createOutput(this.tx, vout, this.address(vout), this.credited.get(vout)!);
    }
  }

  private address(vout: number): string | null {
    if (!this.addresses.has(vout)) {
      this.addresses.set(vout, this.executor.address(this.tx.outputs[vout]!.script));
    }
    return this.addresses.get(vout)!;
  }
}

/**
 * The script of a script-path spend, per BIP341 (rust-bitcoin's `Witness::tapscript`): the
 * second-to-last witness item, or the third-to-last when the last starts with 0x50 (an annex).
 * This says nothing about whether the spent output is P2TR; that is checked separately.
 */
function tapscript(witness: readonly Uint8Array[]): Uint8Array | undefined {
  const last = witness[witness.length - 1];
  if (!last) return undefined;
  const fromEnd = witness.length >= 2 && last[0] === 0x50 ? 3 : 2;
  return witness.length >= fromEnd ? witness[witness.length - fromEnd] : undefined;
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/** Orders `block:tx` ids numerically. */
function compareRuneIds(a: string, b: string): number {
  const [blockA, txA] = a.split(':').map(BigInt) as [bigint, bigint];
  const [blockB, txB] = b.split(':').map(BigInt) as [bigint, bigint];
  if (blockA !== blockB) return blockA < blockB ? -1 : 1;
  return txA === txB ? 0 : txA < txB ? -1 : 1;
}
