import type { DbBnsName, DbBnsNamespace } from '@bda/db';
import { type ClarityNode, parseClarityValue } from '@bda/stacks-codec';
import { isBnsContract, isBnsNamesAsset, NAME_OPS } from './bns-contract';

/** A transaction of a block, as `txs` holds it (or as its row is built in memory). */
export interface BnsTxInput {
  tx_id: string;
  tx_index: number;
  status: string;
  sender_address: string | null;
  contract_id: string | null;
  /** The stored payload (jsonb as text or as an object). */
  payload: unknown;
}

/** An event of a block, as `events` holds it. */
export interface BnsEventInput {
  tx_id: string;
  event_index: number;
  type: string;
  committed: boolean;
  contract_identifier: string | null;
  topic: string | null;
  asset_identifier: string | null;
  value_hex: string | null;
  recipient: string | null;
}

export interface BnsBlockInput {
  index_block_hash: string;
  block_height: number;
  txs: readonly BnsTxInput[];
  events: readonly BnsEventInput[];
}

/** What a block changes in the BNS read models: whole states after each change, in chain order. */
export interface BnsBlockChanges {
  names: DbBnsName[];
  namespaces: DbBnsNamespace[];
}

/** The current states the changes start from (the newest canonical rows). */
export interface BnsPriorState {
  name(fqn: string): DbBnsName | undefined;
  namespace(id: string): DbBnsNamespace | undefined;
}

const EMPTY_PRIOR: BnsPriorState = { name: () => undefined, namespace: () => undefined };

/** True when the block holds something of the BNS contract: most blocks do not, and cost nothing more. */
export function touchesBns(block: Pick<BnsBlockInput, 'txs' | 'events'>): boolean {
  return (
    block.events.some((e) => isBnsContract(e.contract_identifier) || isBnsNamesAsset(e.asset_identifier)) ||
    block.txs.some((t) => isBnsContract(t.contract_id))
  );
}

/** The names and namespaces a block's changes start from, to be looked up before `bnsBlockChanges`. */
export function bnsKeysOf(block: BnsBlockInput): { names: string[]; namespaces: string[] } {
  const names = new Set<string>();
  const namespaces = new Set<string>();
  for (const { op } of operations(block)) {
    if (op.kind === 'namespace-price' || op.kind === 'namespace-ready') namespaces.add(op.namespace);
    else names.add(op.fqn);
  }
  return { names: [...names], namespaces: [...namespaces] };
}

type Operation =
  | { kind: 'owner'; fqn: string; name: string; namespace: string; owner: string }
  | {
      kind: 'print';
      fqn: string;
      name: string;
      namespace: string;
      op: string;
      hash: string;
      txSender: string;
    }
  | { kind: 'renewal'; fqn: string; name: string; namespace: string }
  | { kind: 'namespace-ready'; namespace: string; props: NamespaceProps }
  | { kind: 'namespace-price'; namespace: string; price: PriceFunction };

interface PriceFunction {
  buckets: string;
  base: string;
  coeff: string;
  nonalpha_discount: string;
  no_vowel_discount: string;
}

interface NamespaceProps extends PriceFunction {
  address: string;
  revealed_at: number;
  launched_at: number | null;
  lifetime: string;
  can_update_price_function: boolean;
}

interface Located {
  tx: BnsTxInput;
  eventIndex: number;
  op: Operation;
}

/**
 * The BNS operations of a block in chain order (by transaction, then event): only successful transactions and
 * committed events count. A value that does not decode as the contract prints it is skipped (the node wrote it, the
 * contract did not).
 */
function operations(block: BnsBlockInput): Located[] {
  const txById = new Map(block.txs.map((t) => [t.tx_id, t]));
  const out: Located[] = [];
  const ordered = [...block.events].sort((a, b) => a.event_index - b.event_index);
  const byTx = new Map<string, BnsEventInput[]>();
  for (const ev of ordered) {
    const list = byTx.get(ev.tx_id) ?? [];
    list.push(ev);
    byTx.set(ev.tx_id, list);
  }
  const txs = [...block.txs].sort((a, b) => a.tx_index - b.tx_index);
  for (const tx of txs) {
    if (tx.status !== 'success') continue;
    for (const ev of byTx.get(tx.tx_id) ?? []) {
      if (!ev.committed || !ev.value_hex) continue;
      const op = eventOperation(ev);
      if (op) out.push({ tx: txById.get(ev.tx_id)!, eventIndex: ev.event_index, op });
    }
    const call = isBnsContract(tx.contract_id) ? contractCall(tx.payload) : null;
    const op = call ? callOperation(call) : null;
    if (op) out.push({ tx, eventIndex: -1, op });
  }
  return out;
}

function eventOperation(ev: BnsEventInput): Operation | null {
  try {
    if ((ev.type === 'nft_mint_event' || ev.type === 'nft_transfer_event') && isBnsNamesAsset(ev.asset_identifier)) {
      const key = parseClarityValue(ev.value_hex!);
      const name = bufText(field(key, 'name'));
      const namespace = bufText(field(key, 'namespace'));
      if (name === null || namespace === null || !ev.recipient) return null;
      return { kind: 'owner', fqn: `${name}.${namespace}`, name, namespace, owner: ev.recipient };
    }
    if (ev.type !== 'contract_event' || ev.topic !== 'print' || !isBnsContract(ev.contract_identifier)) return null;
    const value = parseClarityValue(ev.value_hex!);
    const attachment = field(value, 'attachment');
    if (attachment) {
      const metadata = field(attachment, 'metadata');
      const name = bufText(field(metadata, 'name'));
      const namespace = bufText(field(metadata, 'namespace'));
      const op = asciiText(field(metadata, 'op'));
      const hash = bufHex(field(attachment, 'hash'));
      const sender = field(metadata, 'tx-sender');
      if (name === null || namespace === null || op === null || !NAME_OPS.has(op) || hash === null) return null;
      if (sender?.type !== 'principal') return null;
      const txSender = sender.contractName ? `${sender.address}.${sender.contractName}` : sender.address;
      return { kind: 'print', fqn: `${name}.${namespace}`, name, namespace, op, hash, txSender };
    }
    if (asciiText(field(value, 'status')) === 'ready') {
      const namespace = bufText(field(value, 'namespace'));
      const props = namespaceProps(field(value, 'properties'));
      if (namespace === null || !props) return null;
      return { kind: 'namespace-ready', namespace, props };
    }
  } catch {
    return null;
  }
  return null;
}

interface ContractCall {
  function_name: string;
  args: string[];
}

function contractCall(payload: unknown): ContractCall | null {
  let p = payload;
  if (typeof p === 'string') {
    try {
      p = JSON.parse(p);
    } catch {
      return null;
    }
  }
  if (typeof p !== 'object' || p === null) return null;
  const o = p as { function_name?: unknown; function_args?: unknown };
  if (typeof o.function_name !== 'string' || !Array.isArray(o.function_args)) return null;
  const args = o.function_args.map((a) => (a as { hex?: unknown }).hex);
  if (!args.every((a): a is string => typeof a === 'string')) return null;
  return { function_name: o.function_name, args };
}

/**
 * The calls that change BNS state without printing: `name-renewal` without a zonefile (the renewal starts a new lease)
 * and `namespace-update-function-price`. A renewal with a zonefile prints, and is taken from its print.
 */
function callOperation(call: ContractCall): Operation | null {
  try {
    if (call.function_name === 'name-renewal' && call.args.length === 5) {
      const zonefile = parseClarityValue(call.args[4]!);
      if (zonefile.type !== 'optional' || zonefile.value !== null) return null;
      const namespace = bufText(parseClarityValue(call.args[0]!));
      const name = bufText(parseClarityValue(call.args[1]!));
      if (name === null || namespace === null) return null;
      return { kind: 'renewal', fqn: `${name}.${namespace}`, name, namespace };
    }
    if (call.function_name === 'namespace-update-function-price' && call.args.length === 21) {
      const namespace = bufText(parseClarityValue(call.args[0]!));
      const uints = call.args.slice(1).map((a) => uintText(parseClarityValue(a)));
      if (namespace === null || uints.some((u) => u === null)) return null;
      const [base, coeff, ...rest] = uints as string[];
      return {
        kind: 'namespace-price',
        namespace,
        price: {
          base: base!,
          coeff: coeff!,
          buckets: rest.slice(0, 16).join(';'),
          nonalpha_discount: rest[16]!,
          no_vowel_discount: rest[17]!,
        },
      };
    }
  } catch {
    return null;
  }
  return null;
}

function namespaceProps(node: ClarityNode | undefined): NamespaceProps | null {
  const price = field(node, 'price-function');
  const buckets = field(price, 'buckets');
  const launched = field(node, 'launched-at');
  const importer = field(node, 'namespace-import');
  const canUpdate = field(node, 'can-update-price-function');
  if (buckets?.type !== 'list' || importer?.type !== 'principal' || launched?.type !== 'optional') return null;
  const values = {
    base: uintText(field(price, 'base')),
    coeff: uintText(field(price, 'coeff')),
    nonalpha_discount: uintText(field(price, 'nonalpha-discount')),
    no_vowel_discount: uintText(field(price, 'no-vowel-discount')),
    lifetime: uintText(field(node, 'lifetime')),
    revealed_at: uintText(field(node, 'revealed-at')),
  };
  const bucketValues = buckets.items.map(uintText);
  if (Object.values(values).some((v) => v === null) || bucketValues.some((v) => v === null)) return null;
  const launchedAt = launched.value ? uintText(launched.value) : null;
  return {
    address: importer.contractName ? `${importer.address}.${importer.contractName}` : importer.address,
    revealed_at: Number(values.revealed_at),
    launched_at: launchedAt === null ? null : Number(launchedAt),
    lifetime: values.lifetime!,
    can_update_price_function: canUpdate?.type === 'bool' ? canUpdate.value : true,
    buckets: bucketValues.join(';'),
    base: values.base!,
    coeff: values.coeff!,
    nonalpha_discount: values.nonalpha_discount!,
    no_vowel_discount: values.no_vowel_discount!,
  };
}

function field(node: ClarityNode | undefined | null, key: string): ClarityNode | undefined {
  if (node?.type !== 'tuple') return undefined;
  return node.entries.find(([k]) => k === key)?.[1];
}

/** A name or namespace buffer as text: the contract allows only a-z, 0-9, - and _ in them. */
function bufText(node: ClarityNode | undefined): string | null {
  if (node?.type !== 'buffer') return null;
  return Buffer.from(node.bytes).toString('latin1');
}

function bufHex(node: ClarityNode | undefined): string | null {
  return node?.type === 'buffer' ? Buffer.from(node.bytes).toString('hex') : null;
}

function asciiText(node: ClarityNode | undefined): string | null {
  return node?.type === 'string-ascii' ? Buffer.from(node.bytes).toString('latin1') : null;
}

function uintText(node: ClarityNode | undefined): string | null {
  return node?.type === 'uint' ? node.value.toString() : null;
}

/**
 * What a block changes, starting from `prior` (the current canonical states): each operation gives the whole state of
 * its name or namespace after it, as the contract's maps hold it then.
 * - an NFT mint or transfer of `names` sets the owner;
 * - a print sets the zonefile hash (a transfer's or revoke's `0x` clears it) and the lease: `name-register` and
 *   `name-renewal` start one at the block, `name-import` records the import height; `name-revoke` revokes;
 * - a renewal without zonefile starts a new lease and keeps the rest;
 * - `namespace-ready` gives the namespace with its price function and lifetime; a price update replaces the function.
 */
export function bnsBlockChanges(block: BnsBlockInput, prior: BnsPriorState = EMPTY_PRIOR): BnsBlockChanges {
  const names = new Map<string, DbBnsName>();
  const namespaces = new Map<string, DbBnsNamespace>();
  const out: BnsBlockChanges = { names: [], namespaces: [] };
  const height = block.block_height;
  for (const { tx, eventIndex, op } of operations(block)) {
    const position = {
      tx_id: tx.tx_id,
      block_height: height,
      tx_index: tx.tx_index,
      event_index: eventIndex,
      index_block_hash: block.index_block_hash,
    };
    if (op.kind === 'namespace-ready' || op.kind === 'namespace-price') {
      const before = namespaces.get(op.namespace) ?? prior.namespace(op.namespace);
      let row: DbBnsNamespace;
      if (op.kind === 'namespace-ready') {
        row = { namespace_id: op.namespace, ...op.props, status: 'ready', ...position };
      } else {
        if (!before) continue; // revealed, not ready: no namespace shown yet (its reveal prints nothing)
        row = { ...before, ...op.price, status: before.status, ...position };
      }
      namespaces.set(op.namespace, row);
      out.namespaces.push(row);
      continue;
    }
    const before = names.get(op.fqn) ?? prior.name(op.fqn);
    const base: DbBnsName = before
      ? { ...before, sets_zonefile: false }
      : {
          fqn: op.fqn,
          name: op.name,
          namespace_id: op.namespace,
          address: op.kind === 'print' ? op.txSender : '',
          zonefile_hash: '',
          sets_zonefile: false,
          registered_at: null,
          imported_at: null,
          revoked: false,
          status: '',
          ...position,
        };
    const row: DbBnsName = { ...base, ...position };
    if (op.kind === 'owner') {
      row.address = op.owner;
      // A name minted or transferred again after expiry starts anew (its print follows in the same transaction).
      if (!before) row.status = 'name-register';
    } else if (op.kind === 'renewal') {
      row.registered_at = height;
      row.imported_at = null;
      row.revoked = false;
      row.status = 'name-renewal';
    } else {
      row.zonefile_hash = op.hash;
      row.sets_zonefile = op.hash !== '';
      row.status = op.op;
      if (op.op === 'name-register' || op.op === 'name-renewal') {
        row.registered_at = height;
        row.imported_at = null;
        row.revoked = false;
      } else if (op.op === 'name-import') {
        row.imported_at = height;
        row.registered_at = null;
        row.revoked = false;
      } else if (op.op === 'name-revoke') {
        row.revoked = true;
      }
      if (!row.address) row.address = op.txSender;
    }
    names.set(op.fqn, row);
    out.names.push(row);
  }
  return out;
}
