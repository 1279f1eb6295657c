import {
  compressPublicKey,
  createMessageSignature,
  deserializeTransaction,
  getAddressFromPublicKey,
  isSingleSig,
  makeUnsignedSTXTokenTransfer,
  publicKeyFromSignatureVrs,
  sigHashPreSign,
  type StacksTransactionWire,
} from '@stacks/transactions';
import {
  encodeStacksAddress,
  isValidStacksAddress,
  isValidPrincipal,
  StacksAddressVersion,
  type StacksNetworkName,
} from '@bda/stacks-codec';
import { RosettaError } from './rosetta-errors';
import { STX, type OperationResponse } from './rosetta-types';

/**
 * The Construction API's transaction work, all through `@stacks/transactions` (no serialisation or signing of our
 * own): STX token transfers from a single-signature (P2PKH, compressed key) account.
 */

/** What a token transfer intent says: from, to, how much, and optionally the fee. */
export interface TransferIntent {
  sender: string;
  recipient: string;
  amount: bigint;
  fee: bigint | null;
  memo: string | null;
}

/** An unsigned transfer's size in bytes (a single-signature transfer has the same size signed: the signature slot). */
export const TRANSFER_SIZE_BYTES = 180n;

type Json = Record<string, unknown>;

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function amountOf(op: Json, index: number): bigint {
  const amount = op['amount'];
  if (!isObj(amount)) throw new RosettaError('invalidOperations', { index, reason: 'amount missing' });
  const currency = amount['currency'];
  if (!isObj(currency) || currency['symbol'] !== STX.symbol || currency['decimals'] !== STX.decimals) {
    throw new RosettaError('invalidCurrency', { index, currency: currency ?? null });
  }
  const value = amount['value'];
  if (typeof value !== 'string' || !/^-?[0-9]{1,40}$/.test(value))
    throw new RosettaError('invalidAmount', { index, value: value ?? null });
  return BigInt(value);
}

function addressOf(op: Json, index: number, network: StacksNetworkName, standardOnly: boolean): string {
  const account = op['account'];
  const address = isObj(account) ? account['address'] : undefined;
  const ok = standardOnly ? isValidStacksAddress(address, network) : isValidPrincipal(address, network);
  if (!ok) throw new RosettaError('invalidAccount', { index, address: address ?? null, network });
  return address as string;
}

/**
 * Reads construction operations: a `token_transfer` debit of the sender and credit of the recipient of the same
 * amount (in either order), and at most one `fee` debit of the sender. Nothing else is accepted.
 */
export function parseTransferIntent(operations: unknown, network: StacksNetworkName): TransferIntent {
  if (!Array.isArray(operations) || operations.length === 0)
    throw new RosettaError('invalidOperations', { reason: 'operations must be a non-empty array' });
  let debit: { address: string; amount: bigint } | null = null;
  let credit: { address: string; amount: bigint } | null = null;
  let fee: bigint | null = null;
  let memo: string | null = null;
  operations.forEach((op: unknown, index) => {
    if (!isObj(op)) throw new RosettaError('invalidOperations', { index, reason: 'not an object' });
    if (op['status'] !== undefined && op['status'] !== null && op['status'] !== '') {
      throw new RosettaError('invalidOperations', { index, reason: 'construction operations carry no status' });
    }
    const type = op['type'];
    const amount = amountOf(op, index);
    if (type === 'fee') {
      if (fee !== null || amount > 0n) throw new RosettaError('invalidFee', { index, reason: 'one fee operation, a debit' });
      addressOf(op, index, network, true);
      fee = -amount;
      return;
    }
    if (type !== 'token_transfer')
      throw new RosettaError('invalidOperations', { index, type: type ?? null, supported: ['token_transfer', 'fee'] });
    const metadata = op['metadata'];
    if (isObj(metadata) && typeof metadata['memo'] === 'string') memo = metadata['memo'];
    if (amount < 0n) {
      if (debit) throw new RosettaError('invalidOperations', { index, reason: 'more than one debit' });
      debit = { address: addressOf(op, index, network, true), amount: -amount };
    } else {
      if (credit) throw new RosettaError('invalidOperations', { index, reason: 'more than one credit' });
      credit = { address: addressOf(op, index, network, false), amount };
    }
  });
  const d = debit as { address: string; amount: bigint } | null;
  const c = credit as { address: string; amount: bigint } | null;
  if (!d || !c) throw new RosettaError('invalidOperations', { reason: 'a transfer needs a debit and a credit' });
  if (d.amount !== c.amount || d.amount === 0n)
    throw new RosettaError('invalidAmount', { reason: 'debit and credit must be opposite and non-zero' });
  if (d.address === c.address) throw new RosettaError('invalidOperations', { reason: 'sender and recipient are the same' });
  if (memo !== null && Buffer.byteLength(memo, 'utf8') > 34)
    throw new RosettaError('invalidOperations', { reason: 'memo longer than 34 bytes' });
  return { sender: d.address, recipient: c.address, amount: d.amount, fee, memo };
}

/** A compressed secp256k1 public key (33 bytes hex, a point of the curve), as lower-case hex. */
export function parsePublicKey(v: unknown): string {
  if (!isObj(v)) throw new RosettaError('invalidPublicKey', { reason: 'public key missing' });
  if (v['curve_type'] !== 'secp256k1') throw new RosettaError('invalidCurveType', { curve_type: v['curve_type'] ?? null });
  const hex = v['hex_bytes'];
  if (typeof hex !== 'string' || !/^(02|03)[0-9a-fA-F]{64}$/.test(hex)) {
    throw new RosettaError('invalidPublicKey', {
      reason: 'a compressed key: 33 bytes hex starting 02 or 03',
      hex_bytes: typeof hex === 'string' ? hex.slice(0, 140) : null,
    });
  }
  try {
    compressPublicKey(hex); // parses the point: throws when it is not on the curve
  } catch {
    throw new RosettaError('invalidPublicKey', { reason: 'not a point of secp256k1' });
  }
  return hex.toLowerCase();
}

export function addressOfPublicKey(publicKey: string, network: StacksNetworkName): string {
  return getAddressFromPublicKey(publicKey, network);
}

/** The unsigned transfer and the hash its origin signs (pre-sign sighash). */
export async function buildUnsignedTransfer(
  intent: TransferIntent,
  publicKey: string,
  nonce: bigint,
  fee: bigint,
  network: StacksNetworkName,
): Promise<{ unsigned: string; sighash: string }> {
  const tx = await makeUnsignedSTXTokenTransfer({
    recipient: intent.recipient,
    amount: intent.amount,
    fee,
    nonce,
    publicKey,
    network,
    ...(intent.memo !== null ? { memo: intent.memo } : {}),
  });
  return { unsigned: tx.serialize(), sighash: preSignHash(tx) };
}

function preSignHash(tx: StacksTransactionWire): string {
  const c = tx.auth.spendingCondition;
  return sigHashPreSign(tx.signBegin(), tx.auth.authType, c.fee, c.nonce);
}

function strip0x(hex: string): string {
  return hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex;
}

/** A serialized token transfer of `network` from a single-signature origin, decoded. */
function decodeTransfer(hex: unknown, network: StacksNetworkName): StacksTransactionWire {
  if (typeof hex !== 'string' || !/^(0x)?([0-9a-fA-F]{2})+$/.test(hex))
    throw new RosettaError('invalidTransaction', { reason: 'not hex' });
  let tx: StacksTransactionWire;
  try {
    tx = deserializeTransaction(strip0x(hex));
  } catch (err) {
    throw new RosettaError('invalidTransaction', { reason: (err as Error).message.slice(0, 200) });
  }
  if (tx.transactionVersion !== (network === 'mainnet' ? 0x00 : 0x80))
    throw new RosettaError('invalidTransaction', { reason: `not a ${network} transaction` });
  if (tx.payload.payloadType !== 0 || !isSingleSig(tx.auth.spendingCondition)) {
    throw new RosettaError('invalidTransaction', { reason: 'only single-signature token transfers are supported' });
  }
  return tx;
}

function originAddress(tx: StacksTransactionWire, network: StacksNetworkName): string {
  const version = network === 'mainnet' ? StacksAddressVersion.MainnetSingleSig : StacksAddressVersion.TestnetSingleSig;
  return encodeStacksAddress(version, tx.auth.spendingCondition.signer);
}

function signatureOf(tx: StacksTransactionWire): string {
  const c = tx.auth.spendingCondition;
  return isSingleSig(c) ? c.signature.data : '';
}

function isSigned(tx: StacksTransactionWire): boolean {
  return !/^0*$/.test(signatureOf(tx));
}

/**
 * Puts a Rosetta `ecdsa_recovery` signature (r ‖ s ‖ v, 65 bytes) into the unsigned transfer, as Stacks stores it
 * (v ‖ r ‖ s), after checking that it recovers the given public key over the transfer's pre-sign hash and that this
 * key is the transfer's origin. Returns the signed transaction (hex).
 */
export function combineSignature(unsignedHex: unknown, signature: unknown, network: StacksNetworkName): string {
  const tx = decodeTransfer(unsignedHex, network);
  if (isSigned(tx)) throw new RosettaError('invalidTransaction', { reason: 'already signed' });
  if (!isObj(signature)) throw new RosettaError('invalidSignature', { reason: 'not an object' });
  if (signature['signature_type'] !== 'ecdsa_recovery')
    throw new RosettaError('invalidSignature', {
      signature_type: signature['signature_type'] ?? null,
      supported: ['ecdsa_recovery'],
    });
  const publicKey = parsePublicKey(signature['public_key']);
  const bytes = signature['hex_bytes'];
  if (typeof bytes !== 'string' || !/^[0-9a-fA-F]{130}$/.test(bytes)) {
    throw new RosettaError('invalidSignature', {
      reason: '65 bytes hex: r, s, recovery id',
      length: typeof bytes === 'string' ? bytes.length / 2 : null,
    });
  }
  const rsv = bytes.toLowerCase();
  const recovery = rsv.slice(128);
  if (recovery !== '00' && recovery !== '01')
    throw new RosettaError('invalidSignature', { reason: 'recovery id must be 0 or 1' });
  const vrs = recovery + rsv.slice(0, 128);
  const sighash = preSignHash(tx);
  let recovered: string;
  try {
    recovered = publicKeyFromSignatureVrs(sighash, vrs);
  } catch {
    throw new RosettaError('signatureMismatch', { reason: 'no key recovers from this signature' });
  }
  if (recovered.toLowerCase() !== publicKey)
    throw new RosettaError('signatureMismatch', { reason: 'the signature is not by this public key over this transaction' });
  if (addressOfPublicKey(publicKey, network) !== originAddress(tx, network)) {
    throw new RosettaError('signatureMismatch', { reason: 'the public key is not the transaction origin' });
  }
  const c = tx.auth.spendingCondition;
  if (isSingleSig(c)) c.signature = createMessageSignature(vrs);
  return tx.serialize();
}

/** The operations a serialized transfer carries (construction intent: no status), and its signer when signed. */
export function parseTransfer(
  hex: unknown,
  signed: boolean,
  network: StacksNetworkName,
): { operations: OperationResponse[]; signer: string | null } {
  const tx = decodeTransfer(hex, network);
  if (signed !== isSigned(tx))
    throw new RosettaError(signed ? 'transactionNotSigned' : 'invalidTransaction', {
      reason: signed ? 'no signature' : 'signed, but parsed as unsigned',
    });
  const sender = originAddress(tx, network);
  const payload = tx.payload as unknown as { recipient: { value: string }; amount: bigint; memo: { content: string } };
  const amount = payload.amount.toString();
  const fee = tx.auth.spendingCondition.fee.toString();
  const memo = payload.memo.content.replace(/\0+$/, '');
  const operations: OperationResponse[] = [
    {
      operation_identifier: { index: 0 },
      type: 'fee',
      account: { address: sender },
      amount: { value: fee === '0' ? '0' : `-${fee}`, currency: STX },
    },
    {
      operation_identifier: { index: 1 },
      type: 'token_transfer',
      account: { address: sender },
      amount: { value: `-${amount}`, currency: STX },
      ...(memo ? { metadata: { memo } } : {}),
    },
    {
      operation_identifier: { index: 2 },
      related_operations: [{ index: 1 }],
      type: 'token_transfer',
      account: { address: payload.recipient.value },
      amount: { value: amount, currency: STX },
      ...(memo ? { metadata: { memo } } : {}),
    },
  ];
  return { operations, signer: signed ? sender : null };
}

/** The txid of a serialized transaction (0x hex). */
export function transactionHash(hex: unknown, network: StacksNetworkName): string {
  return `0x${decodeTransfer(hex, network).txid()}`;
}

/** The bytes of a serialized, signed transfer. */
export function signedBytes(hex: unknown, network: StacksNetworkName): Uint8Array {
  const tx = decodeTransfer(hex, network);
  if (!isSigned(tx)) throw new RosettaError('transactionNotSigned');
  return Buffer.from(strip0x(hex as string), 'hex');
}
