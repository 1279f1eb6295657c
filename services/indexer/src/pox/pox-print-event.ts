import { type ClarityNode, parseClarityValue, principalNetwork } from '@bda/stacks-codec';
import { addressFromScript } from '@bda/runes';

/** The boot contracts whose `print` events this decodes, by contract identifier (mainnet and testnet boot address). */
export const POX_CONTRACT_VERSIONS: ReadonlyMap<string, 2 | 3 | 4> = new Map(
  (['SP000000000000000000002Q6VF78', 'ST000000000000000000002AMW42H'] as const).flatMap((boot) => [
    [`${boot}.pox-2`, 2] as const,
    [`${boot}.pox-3`, 3] as const,
    [`${boot}.pox-4`, 4] as const,
  ]),
);

/**
 * How each field of an operation's `data` tuple is answered: `uint` a decimal string, `opt-uint` a decimal string or
 * (when `none`) left out, `principal` the principal's text, `key` a buffer as `0x` hex (pox-4 only; null when absent).
 */
type FieldKind = 'uint' | 'opt-uint' | 'principal' | 'key';
type FieldSpec = readonly [clarityName: string, jsonName: string, kind: FieldKind];

const SIGNER_KEY: FieldSpec = ['signer-key', 'signer_key', 'key'];

/**
 * The operations the PoX contracts print, with the fields of their `data` tuple in the order the reference API
 * answers them (stacks-blockchain-api's PoX event parsing, read for the facts). Every pox-4 operation also carries
 * `start-cycle-id` and `end-cycle-id` (`end_cycle_id` null when `none`), answered after these.
 */
const OPERATIONS: Readonly<Record<string, readonly FieldSpec[]>> = {
  'handle-unlock': [
    ['first-cycle-locked', 'first_cycle_locked', 'uint'],
    ['first-unlocked-cycle', 'first_unlocked_cycle', 'uint'],
  ],
  'stack-stx': [
    ['lock-amount', 'lock_amount', 'uint'],
    ['lock-period', 'lock_period', 'uint'],
    ['start-burn-height', 'start_burn_height', 'uint'],
    ['unlock-burn-height', 'unlock_burn_height', 'uint'],
    SIGNER_KEY,
  ],
  'stack-increase': [['increase-by', 'increase_by', 'uint'], ['total-locked', 'total_locked', 'uint'], SIGNER_KEY],
  'stack-extend': [['extend-count', 'extend_count', 'uint'], ['unlock-burn-height', 'unlock_burn_height', 'uint'], SIGNER_KEY],
  'delegate-stx': [
    ['amount-ustx', 'amount_ustx', 'uint'],
    ['delegate-to', 'delegate_to', 'principal'],
    ['unlock-burn-height', 'unlock_burn_height', 'opt-uint'],
  ],
  'delegate-stack-stx': [
    ['lock-amount', 'lock_amount', 'uint'],
    ['unlock-burn-height', 'unlock_burn_height', 'uint'],
    ['start-burn-height', 'start_burn_height', 'uint'],
    ['lock-period', 'lock_period', 'uint'],
    ['delegator', 'delegator', 'principal'],
  ],
  'delegate-stack-increase': [
    ['increase-by', 'increase_by', 'uint'],
    ['total-locked', 'total_locked', 'uint'],
    ['delegator', 'delegator', 'principal'],
  ],
  'delegate-stack-extend': [
    ['unlock-burn-height', 'unlock_burn_height', 'uint'],
    ['extend-count', 'extend_count', 'uint'],
    ['delegator', 'delegator', 'principal'],
  ],
  'stack-aggregation-commit': [['reward-cycle', 'reward_cycle', 'uint'], ['amount-ustx', 'amount_ustx', 'uint'], SIGNER_KEY],
  'stack-aggregation-commit-indexed': [
    ['reward-cycle', 'reward_cycle', 'uint'],
    ['amount-ustx', 'amount_ustx', 'uint'],
    SIGNER_KEY,
  ],
  'stack-aggregation-increase': [
    ['reward-cycle', 'reward_cycle', 'uint'],
    ['amount-ustx', 'amount_ustx', 'uint'],
  ],
  'revoke-delegate-stx': [['delegate-to', 'delegate_to', 'principal']],
};

/** One decoded PoX `print` event: the columns of `pox_events` that come from the value itself. */
interface DecodedPoxEvent {
  name: string;
  stacker: string;
  locked: bigint;
  balance: bigint;
  burnchain_unlock_height: bigint;
  pox_addr: string | null;
  pox_addr_raw: string | null;
  delegator: string | null;
  delegate_to: string | null;
  signer_key: string | null;
  start_cycle_id: bigint | null;
  end_cycle_id: bigint | null;
  amount_ustx: bigint | null;
  unlock_burn_height: bigint | null;
  /** The operation's fields as the API answers them. */
  data: Record<string, string | null>;
}

type Tuple = ReadonlyMap<string, ClarityNode>;

function tupleOf(node: ClarityNode | undefined): Tuple | null {
  return node?.type === 'tuple' ? new Map(node.entries) : null;
}

function uintOf(node: ClarityNode | undefined): bigint | null {
  return node?.type === 'uint' ? node.value : null;
}

function someOf(node: ClarityNode | undefined): ClarityNode | undefined {
  if (node?.type !== 'optional') return node;
  return node.value ?? undefined;
}

function principalOf(node: ClarityNode | undefined): string | null {
  if (node?.type !== 'principal') return null;
  return node.contractName === null ? node.address : `${node.address}.${node.contractName}`;
}

function hex(bytes: Uint8Array): string {
  return `0x${Buffer.from(bytes).toString('hex')}`;
}

const HASH_LENGTHS: Readonly<Record<number, number>> = { 0: 20, 1: 20, 2: 20, 3: 20, 4: 20, 5: 32, 6: 32 };

/**
 * The output script a PoX reward address pays to: P2PKH (0x00), P2SH and the P2SH-wrapped segwit forms (0x01–0x03),
 * P2WPKH (0x04), P2WSH (0x05), P2TR (0x06). Null for any other version or a hash of the wrong length.
 */
function poxOutputScript(version: number, hashbytes: Uint8Array): Uint8Array | null {
  if (HASH_LENGTHS[version] !== hashbytes.length) return null;
  const h = [...hashbytes];
  if (version === 0) return Uint8Array.from([0x76, 0xa9, 0x14, ...h, 0x88, 0xac]);
  if (version <= 3) return Uint8Array.from([0xa9, 0x14, ...h, 0x87]);
  if (version === 6) return Uint8Array.from([0x51, 0x20, ...h]);
  return Uint8Array.from([0x00, h.length, ...h]);
}

/**
 * A `pox-addr` field (`{version, hashbytes}`, or an optional of it): its Bitcoin address on the stacker's network
 * (testnet prefixes off mainnet, as the reference API encodes them) and its raw form (version byte + hashbytes, `0x`
 * for `none`). The address is null when it does not encode.
 */
function poxAddressOf(node: ClarityNode, network: 'mainnet' | 'testnet'): { addr: string | null; raw: string } {
  const tuple = tupleOf(someOf(node));
  if (!tuple) return { addr: null, raw: '0x' };
  const version = tuple.get('version');
  const hashbytes = tuple.get('hashbytes');
  if (version?.type !== 'buffer' || hashbytes?.type !== 'buffer') return { addr: null, raw: '0x' };
  const raw = hex(Uint8Array.from([...version.bytes, ...hashbytes.bytes]));
  const script = version.bytes.length === 1 ? poxOutputScript(version.bytes[0]!, hashbytes.bytes) : null;
  let addr: string | null = null;
  try {
    addr = script ? addressFromScript(script, network) : null;
  } catch {
    addr = null;
  }
  return { addr, raw };
}

/**
 * Decodes the `print` value of a PoX boot contract (`pox-2`, `pox-3`, `pox-4`): `(ok {name, stacker, balance, locked,
 * burnchain-unlock-height, data: {...}})`, printed before the operation takes effect. As the reference API does, the
 * base fields are moved to their values after the operation (the node prints them before): `stack-stx` and
 * `delegate-stack-stx` lock their `lock-amount` until their `unlock-burn-height`, the increases move `increase-by`
 * from balance to locked, the extends (and a `delegate-stx` with an unlock height) set the unlock height, and
 * `handle-unlock` returns the locked amount to the balance. Returns null for an `(err …)` value and for any value
 * that is not such an event (an unknown operation, a missing field): it is not a PoX event to show.
 */
export function decodePoxPrintEvent(valueHex: string, poxVersion: 2 | 3 | 4): DecodedPoxEvent | null {
  let value: ClarityNode;
  try {
    value = parseClarityValue(valueHex);
  } catch {
    return null;
  }
  if (value.type !== 'response' || !value.ok) return null;
  const top = tupleOf(value.value);
  if (!top) return null;
  const nameNode = top.get('name');
  const name = nameNode?.type === 'string-ascii' ? Buffer.from(nameNode.bytes).toString('latin1') : null;
  const stacker = principalOf(top.get('stacker'));
  let locked = uintOf(top.get('locked'));
  let balance = uintOf(top.get('balance'));
  let unlockHeight = uintOf(top.get('burnchain-unlock-height'));
  const fields = tupleOf(top.get('data'));
  const specs = name === null ? undefined : OPERATIONS[name];
  if (!name || !specs || !stacker || locked === null || balance === null || unlockHeight === null || !fields) return null;
  const network = principalNetwork(stacker) ?? 'mainnet';

  const data: Record<string, string | null> = {};
  const uints = new Map<string, bigint>();
  const principals = new Map<string, string>();
  for (const [clarityName, jsonName, kind] of specs) {
    const node = fields.get(clarityName);
    if (kind === 'key') {
      if (poxVersion !== 4) continue;
      const key = someOf(node);
      data[jsonName] = key?.type === 'buffer' ? hex(key.bytes) : null;
    } else if (kind === 'principal') {
      const p = principalOf(node);
      if (p === null) return null;
      principals.set(jsonName, p);
      data[jsonName] = p;
    } else {
      const n = uintOf(kind === 'opt-uint' ? someOf(node) : node);
      if (n === null) {
        if (kind === 'uint') return null;
        continue; // an optional uint that is none is left out, as the reference API answers it
      }
      uints.set(jsonName, n);
      data[jsonName] = n.toString();
    }
  }
  const endCycle = uintOf(someOf(fields.get('end-cycle-id')));
  const startCycle = uintOf(fields.get('start-cycle-id'));
  data['end_cycle_id'] = endCycle === null ? null : endCycle.toString();
  data['start_cycle_id'] = startCycle === null ? null : startCycle.toString();

  const lockAmount = uints.get('lock_amount');
  const increaseBy = uints.get('increase_by');
  const unlockBurnHeight = uints.get('unlock_burn_height');
  switch (name) {
    case 'handle-unlock':
      balance += locked;
      break;
    case 'stack-stx':
    case 'delegate-stack-stx':
      unlockHeight = unlockBurnHeight!;
      balance -= lockAmount!;
      locked = lockAmount!;
      break;
    case 'stack-increase':
    case 'delegate-stack-increase':
      balance -= increaseBy!;
      locked += increaseBy!;
      break;
    case 'stack-extend':
    case 'delegate-stack-extend':
      unlockHeight = unlockBurnHeight!;
      break;
    case 'delegate-stx':
      if (unlockBurnHeight) unlockHeight = unlockBurnHeight;
      break;
  }

  const poxAddrNode = fields.get('pox-addr');
  const poxAddr = poxAddrNode ? poxAddressOf(poxAddrNode, network) : null;
  return {
    name,
    stacker,
    locked,
    balance,
    burnchain_unlock_height: unlockHeight,
    pox_addr: poxAddr?.addr ?? null,
    pox_addr_raw: poxAddr?.raw ?? null,
    delegator: principals.get('delegator') ?? null,
    delegate_to: principals.get('delegate_to') ?? null,
    signer_key: data['signer_key'] ?? null,
    start_cycle_id: startCycle,
    end_cycle_id: endCycle,
    amount_ustx: uints.get('amount_ustx') ?? null,
    unlock_burn_height: unlockBurnHeight ?? null,
    data,
  };
}
