/**
 * The Rosetta (Mesh) error catalogue: every failure of `/rosetta/v1` is one of these, answered HTTP 500 with the
 * entry's `code`, `message` and `retriable` (plus `details` about the request at hand). The list is frozen: codes and
 * messages never change once released (clients match on them), and `/network/options` lists all of them (without
 * details). Add new entries at the end with the next code.
 */
export interface RosettaErrorResponse {
  code: number;
  message: string;
  description?: string;
  retriable: boolean;
  details?: Record<string, unknown>;
}

type CatalogueEntry = Readonly<{ code: number; message: string; retriable: boolean; description: string }>;

function entry(code: number, message: string, retriable: boolean, description: string): CatalogueEntry {
  return Object.freeze({ code, message, retriable, description });
}

export const ROSETTA_ERRORS = Object.freeze({
  internal: entry(700, 'Internal error', true, 'The server failed to answer; the request may succeed if sent again.'),
  malformedRequest: entry(701, 'Malformed request', false, 'The body is not a JSON object, or is too large.'),
  invalidRequest: entry(702, 'Invalid request', false, 'A field of the request is missing or has the wrong type.'),
  networkMissing: entry(703, 'Network identifier missing', false, 'The request has no network_identifier.'),
  blockchainMismatch: entry(704, 'Unsupported blockchain', false, 'network_identifier.blockchain is not "stacks".'),
  networkMismatch: entry(705, 'Wrong network', false, 'network_identifier.network is not the network this server serves.'),
  subNetworkUnsupported: entry(706, 'Sub-networks not supported', false, 'Stacks has no sub-networks.'),
  notReady: entry(707, 'Chain not indexed yet', true, 'No block has been indexed yet; retry later.'),
  blockNotFound: entry(708, 'Block not found', true, 'No canonical block has this index or hash (it may not be indexed yet).'),
  blockIdentifierMismatch: entry(709, 'Block index and hash disagree', false, 'The block with this hash has another index.'),
  invalidBlockHash: entry(710, 'Invalid block hash', false, 'A block hash is 32 bytes of 0x-prefixed hex.'),
  transactionNotFound: entry(711, 'Transaction not found', true, 'No transaction with this hash in that block or the mempool.'),
  invalidTransactionHash: entry(712, 'Invalid transaction hash', false, 'A transaction hash is 32 bytes of 0x-prefixed hex.'),
  invalidAccount: entry(713, 'Invalid account address', false, 'The address is not a Stacks principal.'),
  invalidSubAccount: entry(714, 'Unsupported sub-account', false, 'Sub-accounts are "stacked" (locked STX) only.'),
  invalidCurrency: entry(715, 'Unsupported currency', false, 'The only currency is STX with 6 decimals.'),
  offline: entry(
    716,
    'Endpoint not available offline',
    false,
    'This server runs in offline mode: only derive, preprocess, payloads, combine, parse and hash are served.',
  ),
  invalidCurveType: entry(717, 'Unsupported curve type', false, 'Stacks keys are secp256k1.'),
  invalidPublicKey: entry(718, 'Invalid public key', false, 'A public key is a compressed secp256k1 point (33 bytes hex).'),
  invalidOperations: entry(
    719,
    'Unsupported operations',
    false,
    'Construction takes one token transfer: a fee-less pair of token_transfer operations of opposite amounts.',
  ),
  invalidAmount: entry(720, 'Invalid amount', false, 'Amounts are integer strings of micro-STX.'),
  invalidFee: entry(721, 'Invalid fee', false, 'A fee is a non-negative integer string of micro-STX.'),
  invalidMetadata: entry(
    722,
    'Invalid construction metadata',
    false,
    'payloads needs the metadata /construction/metadata returned (nonce, fee, sender).',
  ),
  invalidTransaction: entry(
    723,
    'Invalid transaction',
    false,
    'The transaction is not a serialized Stacks transaction of this network.',
  ),
  transactionNotSigned: entry(724, 'Transaction not signed', false, 'The transaction carries no signature.'),
  invalidSignature: entry(725, 'Invalid signature', false, 'A signature is 65 bytes (r, s, recovery id) of type ecdsa_recovery.'),
  signatureMismatch: entry(
    726,
    'Signature does not match',
    false,
    'The signature does not recover the signer public key over the payload.',
  ),
  signatureCount: entry(727, 'Exactly one signature needed', false, 'A single-signature transfer takes exactly one signature.'),
  nodeUnavailable: entry(728, 'Stacks node unavailable', true, 'The Stacks node did not answer; retry later.'),
  nodeRejected: entry(
    729,
    'Transaction rejected by the node',
    false,
    'The Stacks node refused the transaction (details.reason).',
  ),
  unknownEndpoint: entry(730, 'Unknown endpoint', false, 'No such Rosetta endpoint, or not a POST.'),
});

export type RosettaErrorName = keyof typeof ROSETTA_ERRORS;

/** A Rosetta failure: thrown anywhere below the router, answered once by its error handler. */
export class RosettaError extends Error {
  constructor(
    readonly kind: RosettaErrorName,
    readonly details?: Record<string, unknown>,
  ) {
    super(ROSETTA_ERRORS[kind].message);
    this.name = 'RosettaError';
  }
}

/** The 500 body of an error. */
export function toRosettaErrorResponse(err: RosettaError): RosettaErrorResponse {
  const e = ROSETTA_ERRORS[err.kind];
  return {
    code: e.code,
    message: e.message,
    retriable: e.retriable,
    ...(err.details ? { details: err.details } : {}),
  };
}

/** The catalogue as `/network/options` lists it: every entry, no details. */
export function rosettaErrorCatalogue(): RosettaErrorResponse[] {
  return Object.values(ROSETTA_ERRORS).map((e) => ({
    code: e.code,
    message: e.message,
    description: e.description,
    retriable: e.retriable,
  }));
}
