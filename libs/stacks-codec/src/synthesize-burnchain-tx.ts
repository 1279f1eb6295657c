import { type ClarityValue, bufferCV, noneCV, principalCV, serializeCV, someCV, tupleCV, uintCV } from '@stacks/transactions';
import { bytesToHex, hexToBytes } from './byte-reader';
import { type ClarityNode, decodeClarityValue, parseClarityValue, principalString } from './clarity-value';
import {
  AddressHashMode,
  type BurnchainOrigin,
  ChainId,
  type ContractCallPayload,
  type DecodedTransaction,
  type TransactionPayload,
  TransactionVersion,
} from './decode-transaction';
import { DecodeError, asDecodeError } from './decode-error';
import { type StacksNetworkName, decodeStacksAddress, isValidPrincipal, principalNetwork } from './principal';
import { type PoxAddress, parsePoxAddress } from './pox-address';

/** An event of a `/new_block` body, loosely typed: only the fields read here are checked. */
export interface NodeEvent {
  txid: string;
  type: string;
  [key: string]: unknown;
}

/** The node's transaction entry for a `raw_tx` of `0x00`. */
export interface BurnchainNodeTx {
  txid: string;
  raw_result?: string | null;
  burnchain_op?: unknown;
}

export interface SynthesizeBurnchainTxInput {
  tx: BurnchainNodeTx;
  /** The block's events; those with this transaction's txid are used. */
  events?: readonly NodeEvent[];
  /** The block's `burn_block_height`: start height of an events-only (old node) stack-stx. */
  burnBlockHeight?: number | null;
  /** Overrides the chain id otherwise implied by the sender's address (1 mainnet, 0x80000000 testnet). */
  chainId?: number;
  /** PoX contract name when neither the operation nor the events tell it (default `pox-4`). */
  poxContractName?: string;
  /** Reward-cycle length for an events-only stack-stx lock period (default 2100 mainnet, 50 testnet). */
  rewardCycleLength?: number;
}

const BOOT_ADDRESS: Record<StacksNetworkName, string> = {
  mainnet: 'SP000000000000000000002Q6VF78',
  testnet: 'ST000000000000000000002AMW42H',
};
const U128_MAX = (1n << 128n) - 1n;
const POX_CONTRACT_RE = /^(SP000000000000000000002Q6VF78|ST000000000000000000002AMW42H)\.(pox(-\d+)?)$/;

type Json = Record<string, unknown>;

function isRecord(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A non-negative integer from a JSON number, decimal string or bigint. */
function toBigInt(v: unknown, what: string): bigint {
  if (typeof v === 'bigint') {
    if (v < 0n) throw new DecodeError(`burnchain op: ${what} is negative`);
    return v;
  }
  if (typeof v === 'number') {
    if (!Number.isFinite(v) || v < 0 || !Number.isInteger(v)) throw new DecodeError(`burnchain op: bad ${what} ${v}`);
    // Above 2^53 the JSON parse already lost precision; a value at or beyond 2^128 can only have been u128::MAX.
    const big = BigInt(v);
    return big > U128_MAX ? U128_MAX : big;
  }
  if (typeof v === 'string' && /^\d+$/.test(v)) return BigInt(v);
  throw new DecodeError(`burnchain op: missing or invalid ${what}`);
}

function optionalBigInt(v: unknown, what: string): bigint | null {
  return v === null || v === undefined ? null : toBigInt(v, what);
}

/** An address field: the node's `{ address, address_version, address_hash_bytes }` object or a plain string. */
function toAddress(v: unknown, what: string): string {
  const address = isRecord(v) ? v.address : v;
  if (typeof address !== 'string' || !isValidPrincipal(address) || address.includes('.')) {
    throw new DecodeError(`burnchain op: invalid ${what} address ${JSON.stringify(address)}`);
  }
  return address;
}

function hexField(v: unknown, what: string): Uint8Array {
  if (typeof v !== 'string') throw new DecodeError(`burnchain op: missing ${what}`);
  return hexToBytes(v, `burnchain op ${what}`);
}

function poxTuple(addr: PoxAddress): ClarityValue {
  return tupleCV({ version: bufferCV(Uint8Array.of(addr.version)), hashbytes: bufferCV(addr.hashbytes) });
}

/** `stacker` address as a PoX address (its hash with P2PKH/P2SH version), the reference API's last resort. */
function poxTupleFromStacksAddress(address: string): ClarityValue {
  const { version, hash160 } = decodeStacksAddress(address);
  const singleSig = version === 22 || version === 26;
  return poxTuple({ version: singleSig ? 0x00 : 0x01, hashbytes: Uint8Array.from(Buffer.from(hash160, 'hex')) });
}

function contractCall(
  contractAddress: string,
  contractName: string,
  functionName: string,
  args: ClarityValue[],
): ContractCallPayload {
  const serialized = args.map((a) => serializeCV(a));
  const count = Buffer.alloc(4);
  count.writeUInt32BE(args.length);
  return {
    typeId: 'contract_call',
    contractId: `${contractAddress}.${contractName}`,
    contractAddress,
    contractName,
    functionName,
    functionArgs: serialized.map((hex) => decodeClarityValue('0x' + hex)),
    functionArgsHex: '0x' + count.toString('hex') + serialized.join(''),
  };
}

function tokenTransfer(recipient: string, amount: bigint, memoHex: string): TransactionPayload {
  return { typeId: 'token_transfer', recipient, amount, memoHex };
}

function tupleField(node: ClarityNode | undefined, key: string): ClarityNode | undefined {
  if (node?.type !== 'tuple') return undefined;
  return node.entries.find(([k]) => k === key)?.[1];
}

function uintOf(node: ClarityNode | undefined): bigint | null {
  if (node?.type === 'optional') return uintOf(node.value ?? undefined);
  return node?.type === 'uint' ? node.value : null;
}

function asciiOf(node: ClarityNode | undefined): string | null {
  return node?.type === 'string-ascii' ? Buffer.from(node.bytes).toString('latin1') : null;
}

function poxTupleFromNode(node: ClarityNode | undefined): ClarityValue | null {
  const inner = node?.type === 'optional' ? (node.value ?? undefined) : node;
  const version = tupleField(inner, 'version');
  const hashbytes = tupleField(inner, 'hashbytes');
  if (version?.type !== 'buffer' || hashbytes?.type !== 'buffer' || version.bytes.length !== 1) return null;
  return poxTuple({ version: version.bytes[0]!, hashbytes: hashbytes.bytes });
}

interface PoxPrintEvent {
  contractAddress: string;
  contractName: string;
  name: string;
  stacker: string | null;
  data: ClarityNode | undefined;
}

/** The synthetic print event pox-2 and later emit for each stacking call: `(ok { name, stacker, data, … })`. */
function findPoxPrintEvent(events: readonly NodeEvent[]): PoxPrintEvent | null {
  for (const ev of events) {
    const body = ev.type === 'contract_event' && isRecord(ev.contract_event) ? ev.contract_event : null;
    if (!body || body.topic !== 'print' || typeof body.raw_value !== 'string') continue;
    const m = typeof body.contract_identifier === 'string' ? POX_CONTRACT_RE.exec(body.contract_identifier) : null;
    if (!m) continue;
    let value: ClarityNode;
    try {
      value = parseClarityValue(body.raw_value);
    } catch {
      continue;
    }
    if (value.type === 'response') value = value.value;
    const name = asciiOf(tupleField(value, 'name'));
    if (name === null) continue;
    const stacker = tupleField(value, 'stacker');
    return {
      contractAddress: m[1]!,
      contractName: m[2]!,
      name,
      stacker: stacker?.type === 'principal' ? principalString(stacker) : null,
      data: tupleField(value, 'data'),
    };
  }
  return null;
}

function eventBody(events: readonly NodeEvent[], type: string): Json | null {
  const ev = events.find((e) => e.type === type);
  const body = ev?.[type];
  return isRecord(body) ? body : null;
}

function splitContractId(id: unknown): { address: string; name: string } | null {
  if (typeof id !== 'string') return null;
  const [address, name] = id.split('.');
  return address && name ? { address, name } : null;
}

interface Synthesized {
  sender: string;
  payload: TransactionPayload;
  origin: BurnchainOrigin;
}

function opOrigin(op: BurnchainOrigin['op'], body: Json): BurnchainOrigin {
  return {
    op,
    burnTxid: typeof body.burn_txid === 'string' ? body.burn_txid : null,
    burnBlockHeight: typeof body.burn_block_height === 'number' ? body.burn_block_height : null,
    vtxindex: typeof body.vtxindex === 'number' ? body.vtxindex : null,
  };
}

function networkOf(address: string): StacksNetworkName {
  const net = principalNetwork(address);
  if (!net) throw new DecodeError(`burnchain op: cannot tell the network of ${address}`);
  return net;
}

function fromOperation(op: Json, ctx: Context): Synthesized | null {
  if (isRecord(op.transfer_stx)) {
    const body = op.transfer_stx;
    const sender = toAddress(body.sender, 'sender');
    const recipient = toAddress(body.recipient, 'recipient');
    const memo = typeof body.memo === 'string' ? bytesToHex(hexToBytes(body.memo, 'transfer_stx memo')) : '0x';
    return {
      sender,
      payload: tokenTransfer(recipient, toBigInt(body.transfered_ustx ?? body.transferred_ustx, 'transfered_ustx'), memo),
      origin: opOrigin('transfer_stx', body),
    };
  }
  if (isRecord(op.stack_stx)) {
    const body = op.stack_stx;
    const sender = toAddress(body.sender, 'sender');
    const net = networkOf(sender);
    const lockContract = splitContractId(eventBody(ctx.events, 'stx_lock_event')?.contract_identifier);
    const print = findPoxPrintEvent(ctx.events);
    const signerKey = body.signer_key;
    const contractName =
      lockContract?.name ?? print?.contractName ?? (signerKey != null ? 'pox-4' : (ctx.input.poxContractName ?? 'pox'));
    if (typeof body.reward_addr !== 'string') throw new DecodeError('burnchain op: stack_stx without reward_addr');
    // stacks-core calls stack-stx with the operation's burn height as start-burn-ht; pox-4 adds the signer args.
    const args: ClarityValue[] = [
      uintCV(toBigInt(body.stacked_ustx, 'stacked_ustx')),
      poxTuple(parsePoxAddress(body.reward_addr)),
      uintCV(toBigInt(body.burn_block_height ?? ctx.input.burnBlockHeight, 'burn_block_height')),
      uintCV(toBigInt(body.num_cycles, 'num_cycles')),
    ];
    if (contractName === 'pox-4' && signerKey != null) {
      args.push(
        noneCV(),
        bufferCV(hexField(signerKey, 'signer_key')),
        uintCV(toBigInt(body.max_amount, 'max_amount')),
        uintCV(toBigInt(body.auth_id, 'auth_id')),
      );
    }
    return {
      sender,
      payload: contractCall(BOOT_ADDRESS[net], contractName, 'stack-stx', args),
      origin: opOrigin('stack_stx', body),
    };
  }
  if (isRecord(op.delegate_stx)) {
    const body = op.delegate_stx;
    const sender = toAddress(body.sender, 'sender');
    const net = networkOf(sender);
    const print = findPoxPrintEvent(ctx.events);
    const contractName = print?.contractName ?? ctx.input.poxContractName ?? 'pox-4';
    const until = optionalBigInt(body.until_burn_height, 'until_burn_height');
    // reward_addr is `[output index, address]` or null.
    const rewardAddr = Array.isArray(body.reward_addr) ? body.reward_addr[1] : null;
    if (rewardAddr !== null && typeof rewardAddr !== 'string') throw new DecodeError('burnchain op: bad reward_addr');
    const args: ClarityValue[] = [
      uintCV(toBigInt(body.delegated_ustx, 'delegated_ustx')),
      principalCV(toAddress(body.delegate_to, 'delegate_to')),
      until === null ? noneCV() : someCV(uintCV(until)),
      rewardAddr === null ? noneCV() : someCV(poxTuple(parsePoxAddress(rewardAddr))),
    ];
    return {
      sender,
      payload: contractCall(BOOT_ADDRESS[net], contractName, 'delegate-stx', args),
      origin: opOrigin('delegate_stx', body),
    };
  }
  if (isRecord(op.vote_for_aggregate_key)) {
    const body = op.vote_for_aggregate_key;
    const sender = toAddress(body.sender, 'sender');
    const net = networkOf(sender);
    const args: ClarityValue[] = [
      uintCV(toBigInt(body.signer_index, 'signer_index')),
      bufferCV(hexField(body.aggregate_key, 'aggregate_key')),
      uintCV(toBigInt(body.round, 'round')),
      uintCV(toBigInt(body.reward_cycle, 'reward_cycle')),
    ];
    return {
      sender,
      payload: contractCall(BOOT_ADDRESS[net], 'signers-voting', 'vote-for-aggregate-public-key', args),
      origin: opOrigin('vote_for_aggregate_key', body),
    };
  }
  if (isRecord(op.pre_stx)) {
    throw new DecodeError('burnchain op: pre_stx only authorizes a sender; it is not executed as a transaction');
  }
  return null;
}

/** Old nodes (no `burnchain_op`): rebuild from the events, as the reference API does. */
function fromEvents(ctx: Context): Synthesized | null {
  const { events, input } = ctx;
  const origin = { op: 'events' as const, burnTxid: null, burnBlockHeight: input.burnBlockHeight ?? null, vtxindex: null };
  const transfer = eventBody(events, 'stx_transfer_event');
  if (transfer) {
    const memo = typeof transfer.memo === 'string' && transfer.memo !== '' ? transfer.memo : '0x';
    return {
      sender: toAddress(transfer.sender, 'sender'),
      payload: tokenTransfer(
        toAddress(transfer.recipient, 'recipient'),
        toBigInt(transfer.amount, 'amount'),
        bytesToHex(hexToBytes(memo, 'memo')),
      ),
      origin,
    };
  }
  const print = findPoxPrintEvent(events);
  const lock = eventBody(events, 'stx_lock_event');
  if (lock) {
    const sender = toAddress(lock.locked_address, 'locked_address');
    const net = networkOf(sender);
    const contract = splitContractId(lock.contract_identifier) ?? { address: BOOT_ADDRESS[net], name: 'pox' };
    const data = print?.name === 'stack-stx' ? print.data : undefined;
    const burnHeight = uintOf(tupleField(data, 'start-burn-height')) ?? optionalBigInt(input.burnBlockHeight, 'burn height');
    if (burnHeight === null) throw new DecodeError('burnchain tx from stx_lock_event needs the burn block height');
    let lockPeriod = uintOf(tupleField(data, 'lock-period'));
    if (lockPeriod === null) {
      const cycle = BigInt(input.rewardCycleLength ?? (net === 'mainnet' ? 2100 : 50));
      const unlock = toBigInt(lock.unlock_height, 'unlock_height');
      lockPeriod = unlock > burnHeight ? (unlock - burnHeight) / cycle : 0n;
    }
    const args: ClarityValue[] = [
      uintCV(uintOf(tupleField(data, 'lock-amount')) ?? toBigInt(lock.locked_amount, 'locked_amount')),
      poxTupleFromNode(tupleField(data, 'pox-addr')) ?? poxTupleFromStacksAddress(sender),
      uintCV(burnHeight),
      uintCV(lockPeriod),
    ];
    return { sender, payload: contractCall(contract.address, contract.name, 'stack-stx', args), origin };
  }
  if (print?.name === 'delegate-stx' && print.stacker) {
    const data = print.data;
    const amount = uintOf(tupleField(data, 'amount-ustx'));
    const delegateTo = tupleField(data, 'delegate-to');
    if (amount === null || delegateTo?.type !== 'principal') {
      throw new DecodeError('burnchain tx: delegate-stx print event without amount-ustx/delegate-to');
    }
    const until = uintOf(tupleField(data, 'unlock-burn-height'));
    const poxAddr = poxTupleFromNode(tupleField(data, 'pox-addr'));
    const args: ClarityValue[] = [
      uintCV(amount),
      principalCV(principalString(delegateTo)),
      until === null ? noneCV() : someCV(uintCV(until)),
      poxAddr === null ? noneCV() : someCV(poxAddr),
    ];
    return {
      sender: print.stacker,
      payload: contractCall(print.contractAddress, print.contractName, 'delegate-stx', args),
      origin,
    };
  }
  return null;
}

interface Context {
  input: SynthesizeBurnchainTxInput;
  events: readonly NodeEvent[];
}

/**
 * Builds the `DecodedTransaction` of a transaction the node reports with `raw_tx` `0x00` (a STX operation made on
 * Bitcoin). From the node's `burnchain_op` when present:
 * - `transfer_stx` → `token_transfer` (sender → recipient, `transfered_ustx`, the operation's memo);
 * - `stack_stx` → `contract_call` of `stack-stx` on the PoX contract, with the arguments stacks-core passes
 *   (amount, reward address tuple, start burn height, cycles; plus `none`, signer key, max amount, auth id on pox-4);
 * - `delegate_stx` → `contract_call` of `delegate-stx` (amount, delegate, optional until-height, optional reward addr);
 * - `vote_for_aggregate_key` → `contract_call` of `signers-voting.vote-for-aggregate-public-key`;
 * - `pre_stx` is never executed as a transaction: `DecodeError`.
 * Without `burnchain_op` (older nodes) it falls back on the transaction's events: an `stx_transfer_event`, an
 * `stx_lock_event` (+ the PoX print event when there is one) or a pox `delegate-stx` print event.
 * Fee and nonce are 0, auth is standard single-sig, anchor mode `any`, post-condition mode `allow`, no post
 * conditions; version and chain id follow the sender's network. Throws a `DecodeError` when nothing fits.
 */
export function synthesizeBurnchainTransaction(input: SynthesizeBurnchainTxInput): DecodedTransaction {
  const { tx } = input;
  if (!isRecord(tx) || typeof tx.txid !== 'string' || !/^(0x)?[0-9a-fA-F]{64}$/.test(tx.txid)) {
    throw new DecodeError('burnchain tx: missing or invalid txid');
  }
  const txId = '0x' + tx.txid.replace(/^0x/, '').toLowerCase();
  const events = (input.events ?? []).filter((e) => isRecord(e) && typeof e.txid === 'string' && e.txid.toLowerCase() === txId);
  const ctx: Context = { input, events };
  const op = isRecord(tx.burnchain_op) ? tx.burnchain_op : null;
  // Library constructors (uintCV, principalCV…) throw plain Errors on bad input: report them as DecodeError.
  const synthesized = asDecodeError(`burnchain tx ${txId}`, () => (op && fromOperation(op, ctx)) ?? fromEvents(ctx));
  if (!synthesized) {
    const opKeys = op ? Object.keys(op).join(',') : 'none';
    throw new DecodeError(`burnchain tx ${txId}: no supported burnchain_op (${opKeys}) or events to rebuild it from`);
  }
  const net = networkOf(synthesized.sender);
  return {
    txId,
    version: net === 'mainnet' ? TransactionVersion.Mainnet : TransactionVersion.Testnet,
    chainId: input.chainId ?? (net === 'mainnet' ? ChainId.Mainnet : ChainId.Testnet),
    anchorMode: 'any',
    postConditionMode: 'allow',
    postConditions: [],
    authType: 'standard',
    originHashMode: AddressHashMode.P2PKH,
    senderAddress: synthesized.sender,
    sponsorAddress: null,
    nonce: 0n,
    feeRate: 0n,
    sponsorNonce: null,
    payload: synthesized.payload,
    burnchain: {
      ...synthesized.origin,
      burnBlockHeight: synthesized.origin.burnBlockHeight ?? input.burnBlockHeight ?? null,
    },
  };
}
