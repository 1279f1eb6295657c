import { createNodeRpc } from '../datastore/rosetta-node';
import {
  addressOfPublicKey,
  buildUnsignedTransfer,
  combineSignature,
  parsePublicKey,
  parseTransfer,
  parseTransferIntent,
  signedBytes,
  transactionHash,
  TRANSFER_SIZE_BYTES,
} from '../mappers/rosetta-construction';
import { RosettaError } from '../mappers/rosetta-errors';
import { STX } from '../mappers/rosetta-types';
import type { RosettaContext } from './rosetta-context';
import type { RosettaRoutes } from './rosetta-handler';
import { checkNetwork, invalid, isObject, optionalObject, requireArray, requireObject, type Body } from './rosetta-request';

/** The smallest fee a node relays for a transfer, micro-STX (1 per byte of its 180 bytes). */
const MIN_TRANSFER_FEE = 180n;

const UINT_RE = /^[0-9]{1,20}$/;

/** `options` as `/preprocess` made them: the transfer, and the fee the intent fixed (if any). */
interface TransferOptions {
  sender_address: string;
  recipient_address: string;
  amount: string;
  fee?: string;
  memo?: string;
}

function transferOptions(body: Body, field: string): TransferOptions {
  const o = requireObject(body, field);
  for (const k of ['sender_address', 'recipient_address', 'amount'] as const) {
    if (typeof o[k] !== 'string') throw invalid(`${field}.${k}`, 'must be a string');
  }
  if (!UINT_RE.test(o['amount'] as string)) throw new RosettaError('invalidAmount', { [`${field}.amount`]: o['amount'] });
  if (o['fee'] !== undefined && (typeof o['fee'] !== 'string' || !UINT_RE.test(o['fee'])))
    throw new RosettaError('invalidFee', { [`${field}.fee`]: o['fee'] });
  return o as unknown as TransferOptions;
}

/** The single public key of `public_keys`. */
function singlePublicKey(body: Body): string {
  const keys = requireArray(body, 'public_keys');
  if (keys.length !== 1)
    throw new RosettaError('invalidPublicKey', { reason: 'exactly one public key (single signature)', count: keys.length });
  return parsePublicKey(keys[0]);
}

/**
 * `/construction/*` for STX token transfers. derive, preprocess, payloads, combine, parse and hash use neither the
 * database nor a node (offline mode serves them); metadata and submit ask a Stacks node.
 */
export function rosettaConstructionRoutes(ctx: RosettaContext): RosettaRoutes {
  const node = createNodeRpc(ctx.options.nodeRpcUrls, ctx.options.nodeTimeoutMs);
  return {
    '/construction/derive': async (body) => {
      const network = await checkNetwork(ctx, body);
      const publicKey = parsePublicKey(body['public_key']);
      return { account_identifier: { address: addressOfPublicKey(publicKey, network) } };
    },
    '/construction/preprocess': async (body) => {
      const network = await checkNetwork(ctx, body);
      const intent = parseTransferIntent(body['operations'], network);
      const options: TransferOptions = {
        sender_address: intent.sender,
        recipient_address: intent.recipient,
        amount: intent.amount.toString(),
        ...(intent.fee !== null ? { fee: intent.fee.toString() } : {}),
        ...(intent.memo !== null ? { memo: intent.memo } : {}),
      };
      return { options, required_public_keys: [{ address: intent.sender }] };
    },
    '/construction/metadata': async (body) => {
      ctx.requireOnline();
      const network = await checkNetwork(ctx, body);
      const options = transferOptions(body, 'options');
      const keys = body['public_keys'];
      if (Array.isArray(keys) && keys.length > 0) {
        const key = singlePublicKey(body);
        if (addressOfPublicKey(key, network) !== options.sender_address) {
          throw new RosettaError('invalidPublicKey', {
            reason: 'the public key is not the sender',
            sender: options.sender_address,
          });
        }
      }
      const nonce = await node.accountNonce(options.sender_address);
      let fee: bigint;
      if (options.fee !== undefined) {
        fee = BigInt(options.fee);
      } else {
        const rate = await node.transferFeeRate();
        fee = rate * TRANSFER_SIZE_BYTES > MIN_TRANSFER_FEE ? rate * TRANSFER_SIZE_BYTES : MIN_TRANSFER_FEE;
      }
      return {
        metadata: { ...options, nonce: nonce.toString(), fee: fee.toString() },
        suggested_fee: [{ value: fee.toString(), currency: STX }],
      };
    },
    '/construction/payloads': async (body) => {
      const network = await checkNetwork(ctx, body);
      const intent = parseTransferIntent(body['operations'], network);
      const metadata = optionalObject(body, 'metadata');
      const nonce = metadata?.['nonce'];
      const fee = intent.fee !== null ? intent.fee.toString() : metadata?.['fee'];
      if (typeof nonce !== 'string' || !UINT_RE.test(nonce) || typeof fee !== 'string' || !UINT_RE.test(fee)) {
        throw new RosettaError('invalidMetadata', { reason: 'metadata.nonce and metadata.fee (integer strings) are required' });
      }
      const publicKey = singlePublicKey(body);
      if (addressOfPublicKey(publicKey, network) !== intent.sender) {
        throw new RosettaError('invalidPublicKey', { reason: 'the public key is not the sender', sender: intent.sender });
      }
      const { unsigned, sighash } = await buildUnsignedTransfer(intent, publicKey, BigInt(nonce), BigInt(fee), network);
      return {
        unsigned_transaction: unsigned,
        payloads: [
          {
            address: intent.sender,
            account_identifier: { address: intent.sender },
            hex_bytes: sighash,
            signature_type: 'ecdsa_recovery',
          },
        ],
      };
    },
    '/construction/combine': async (body) => {
      const network = await checkNetwork(ctx, body);
      const signatures = requireArray(body, 'signatures');
      if (signatures.length !== 1) throw new RosettaError('signatureCount', { count: signatures.length });
      const signature = signatures[0];
      return {
        signed_transaction: combineSignature(body['unsigned_transaction'], isObject(signature) ? signature : null, network),
      };
    },
    '/construction/parse': async (body) => {
      const network = await checkNetwork(ctx, body);
      if (typeof body['signed'] !== 'boolean') throw invalid('signed', 'must be a boolean');
      const { operations, signer } = parseTransfer(body['transaction'], body['signed'], network);
      return { operations, account_identifier_signers: signer ? [{ address: signer }] : [] };
    },
    '/construction/hash': async (body) => {
      const network = await checkNetwork(ctx, body);
      return { transaction_identifier: { hash: transactionHash(body['signed_transaction'], network) } };
    },
    '/construction/submit': async (body) => {
      ctx.requireOnline();
      const network = await checkNetwork(ctx, body);
      const bytes = signedBytes(body['signed_transaction'], network);
      const hash = await node.submit(bytes);
      return { transaction_identifier: { hash } };
    },
  };
}
