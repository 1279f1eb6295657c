import { address, networks } from 'bitcoinjs-lib';
import type { Network } from './network';

const PARAMS = {
  mainnet: networks.bitcoin,
  testnet: networks.testnet,
  signet: networks.testnet,
  regtest: networks.regtest,
} as const;

const OP_0 = 0x00;
const OP_1 = 0x51;
const OP_16 = 0x60;

/**
 * The address an output script pays to, as rust-bitcoin's `Address::from_script` gives it (the
 * convention of rune activity APIs): P2PKH and P2SH in base58check, witness programs in bech32
 * (v0: only 20 or 32-byte programs) or bech32m (v1 P2TR and every future version, programs of
 * 2–40 bytes). Signet uses testnet's prefixes, regtest `bcrt`. P2PK, bare multisig, OP_RETURN
 * and anything non-standard have no address: `null`.
 */
export function addressFromScript(script: Uint8Array, network: Network): string | null {
  const params = PARAMS[network];
  if (isP2pkh(script)) return address.toBase58Check(Buffer.from(script.subarray(3, 23)), params.pubKeyHash);
  if (isP2sh(script)) return address.toBase58Check(Buffer.from(script.subarray(2, 22)), params.scriptHash);
  const witness = witnessProgram(script);
  if (!witness) return null;
  if (witness.version === 0 && witness.program.length !== 20 && witness.program.length !== 32) return null;
  return address.toBech32(Buffer.from(witness.program), witness.version, params.bech32);
}

/** `OP_1 <32 bytes>`: a pay-to-taproot output. */
export function isP2trScript(script: Uint8Array): boolean {
  return script.length === 34 && script[0] === OP_1 && script[1] === 0x20;
}

/** Whether an output script starts with OP_RETURN (such outputs burn whatever runes they get). */
export function isOpReturnScript(script: Uint8Array): boolean {
  return script[0] === 0x6a;
}

function isP2pkh(s: Uint8Array): boolean {
  return s.length === 25 && s[0] === 0x76 && s[1] === 0xa9 && s[2] === 0x14 && s[23] === 0x88 && s[24] === 0xac;
}

function isP2sh(s: Uint8Array): boolean {
  return s.length === 23 && s[0] === 0xa9 && s[1] === 0x14 && s[22] === 0x87;
}

/** BIP141 witness program: a version opcode (OP_0, OP_1–OP_16) then one direct push of 2–40 bytes. */
function witnessProgram(s: Uint8Array): { version: number; program: Uint8Array } | undefined {
  if (s.length < 4 || s.length > 42) return undefined;
  const op = s[0]!;
  if (op !== OP_0 && (op < OP_1 || op > OP_16)) return undefined;
  if (s[1]! + 2 !== s.length) return undefined;
  return { version: op === OP_0 ? 0 : op - OP_1 + 1, program: s.subarray(2) };
}
