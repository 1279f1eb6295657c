import { RosettaError } from '../mappers/rosetta-errors';

/**
 * The Stacks node RPC calls of the Construction API (`/construction/metadata`, `/construction/submit`): each tries the
 * configured node URLs in order (a URL that does not answer, or answers 5xx, passes to the next) and throws the
 * catalogued `nodeUnavailable` when none answers. A 4xx answer is the node's verdict and is returned.
 */
export interface NodeRpc {
  /** The account's next nonce as the node sees it (`GET /v2/accounts/{principal}?proof=0`). */
  accountNonce(address: string): Promise<bigint>;
  /** The node's fee rate for a token transfer, micro-STX per byte (`GET /v2/fees/transfer`). */
  transferFeeRate(): Promise<bigint>;
  /** Posts a serialized transaction (`POST /v2/transactions`); the txid the node accepted. */
  submit(tx: Uint8Array): Promise<string>;
}

export function createNodeRpc(urls: string[], timeoutMs: number): NodeRpc {
  async function call(path: string, init: RequestInit = {}): Promise<{ status: number; text: string }> {
    if (urls.length === 0) throw new RosettaError('nodeUnavailable', { reason: 'no node RPC URL is configured' });
    const failures: string[] = [];
    for (const base of urls) {
      try {
        const res = await fetch(`${base.replace(/\/+$/, '')}${path}`, { ...init, signal: AbortSignal.timeout(timeoutMs) });
        const text = await res.text();
        if (res.status < 500) return { status: res.status, text };
        failures.push(`${base}: HTTP ${res.status}`);
      } catch (err) {
        failures.push(`${base}: ${(err as Error).message}`);
      }
    }
    throw new RosettaError('nodeUnavailable', { failures });
  }

  function json(r: { status: number; text: string }, what: string): unknown {
    if (r.status !== 200)
      throw new RosettaError('nodeUnavailable', { reason: `${what}: HTTP ${r.status}`, body: r.text.slice(0, 500) });
    try {
      return JSON.parse(r.text) as unknown;
    } catch {
      throw new RosettaError('nodeUnavailable', { reason: `${what}: not JSON` });
    }
  }

  return {
    async accountNonce(address) {
      const body = json(await call(`/v2/accounts/${encodeURIComponent(address)}?proof=0`), 'account') as { nonce?: unknown };
      if (typeof body.nonce !== 'number' || !Number.isSafeInteger(body.nonce) || body.nonce < 0) {
        throw new RosettaError('nodeUnavailable', { reason: 'account: no nonce in the answer' });
      }
      return BigInt(body.nonce);
    },
    async transferFeeRate() {
      const body = json(await call('/v2/fees/transfer'), 'fee rate');
      if (typeof body !== 'number' || !Number.isSafeInteger(body) || body < 0) {
        throw new RosettaError('nodeUnavailable', { reason: 'fee rate: not a non-negative integer' });
      }
      return BigInt(body);
    },
    async submit(tx) {
      const r = await call('/v2/transactions', {
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream' },
        body: tx,
      });
      if (r.status !== 200) {
        let reason: unknown = r.text.slice(0, 1000);
        try {
          reason = JSON.parse(r.text) as unknown;
        } catch {
          // keep the text
        }
        throw new RosettaError('nodeRejected', { status: r.status, reason });
      }
      const txid = (() => {
        try {
          return JSON.parse(r.text) as unknown;
        } catch {
          return r.text.trim();
        }
      })();
      if (typeof txid !== 'string') throw new RosettaError('nodeUnavailable', { reason: 'submit: no txid in the answer' });
      return txid.startsWith('0x') ? txid : `0x${txid}`;
    },
  };
}
