import { readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * STX allocated at the chain's genesis that no node event records. A Stacks node sends the allocations of a
 * mocknet or testnet genesis as `stx_mint_event`s of its first block, and those are operations like any other; a
 * mainnet node sends none (they are part of its built-in genesis state). Operators of a mainnet api give them here,
 * in the format of `rosetta-cli`'s `bootstrap_balances` file; the api then shows them as `mint` operations of the
 * genesis block and counts them in every balance (ADR 0020).
 */
const fileSchema = z.array(
  z.object({
    account_identifier: z.object({ address: z.string().min(1) }),
    currency: z.object({ symbol: z.literal('STX'), decimals: z.literal(6) }),
    value: z.string().regex(/^[0-9]+$/),
  }),
);

/** The allocations of `file` by address (amounts of one address added up), in the file's order. */
export function loadGenesisBalances(file: string): ReadonlyMap<string, bigint> {
  const entries = fileSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  const out = new Map<string, bigint>();
  for (const e of entries) {
    const address = e.account_identifier.address;
    out.set(address, (out.get(address) ?? 0n) + BigInt(e.value));
  }
  return out;
}
