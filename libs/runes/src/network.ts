/** The Bitcoin networks this package supports. Signet shares testnet's address formats. */
export type Network = 'mainnet' | 'testnet' | 'signet' | 'regtest';

export const NETWORKS: readonly Network[] = ['mainnet', 'testnet', 'signet', 'regtest'];

/** Blocks between subsidy halvings; rune activation and name unlocking are measured in it. */
export const SUBSIDY_HALVING_INTERVAL = 210_000;

/**
 * First block whose transactions are executed for runes (ord's `Rune::first_rune_height`):
 * mainnet the fourth halving (840,000), testnet3 the twelfth (2,520,000), signet and regtest 0.
 * (ord's catch-all arm also gives testnet4 0; testnet4 is not supported here.)
 */
export function firstRuneHeight(network: Network): number {
  switch (network) {
    case 'mainnet':
      return SUBSIDY_HALVING_INTERVAL * 4;
    case 'testnet':
      return SUBSIDY_HALVING_INTERVAL * 12;
    case 'signet':
    case 'regtest':
      return 0;
  }
}
