import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordedEvent } from '@bda/observer';

const FIXTURE_DIR = join(import.meta.dirname, '..', 'fixtures', 'stacks-node-events');

export function fixturePath(name: string): string {
  return join(FIXTURE_DIR, name);
}

/** All events of a fixture file, in order. */
export function loadFixture(name: string): RecordedEvent[] {
  return readFileSync(fixturePath(name), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((line) => {
      const cols = line.split('\t');
      return { id: cols[0]!, receivedAt: cols[1]!, path: cols[2]!, body: cols.slice(3).join('\t') };
    });
}

/** Canonical tips the fixtures README gives for a replay in id order. */
export const EXPECTED_TIPS: Record<string, { height: number; indexBlockHash: string } | undefined> = {
  'mocknet.tsv': { height: 28, indexBlockHash: '0x76cd67a65c0dfd5ea450bb9efe30da89fa125bfc077c953802f718353283a533' },
  'mainnet-reorg-scenario1.tsv': {
    height: 47,
    indexBlockHash: '0x4f6dc8e302792fe2e3c5b66ae29db7d6170baa0e2120fb8f7b3c3956bbc3901c',
  },
  'fuzzed-transactions-1.tsv': {
    height: 12,
    indexBlockHash: '0x3a027883a1952955c5836fa0048383bf7a6492519d1dc9c28eb54e4e4c109a35',
  },
  'epoch-3-transition.tsv': { height: 50, indexBlockHash: '0xf5be33abc4e508bdaf2191e88339372edcb3358c44e2a31e1b9b44f2880dde09' },
  // A single block (height 1) with microblocks before and after it: no tip in the README, the block is the tip.
  'mainnet-out-of-order-microblock.tsv': {
    height: 1,
    indexBlockHash: '0x027a25cb9b3113cf23ffa70514fd3fbea59ee32718bb61b40b0062f39be40e25',
  },
};
