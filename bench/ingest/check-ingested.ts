import type { Knex } from 'knex';
import type { RecordedEvent } from '@bda/observer';
import { EXPECTED_TIPS } from '../../test/support/fixtures';
import { BenchInvalidError } from '../spread';

/** The canonical tip a run must end on. */
export interface ExpectedTip {
  height: number;
  indexBlockHash: string;
}

/**
 * The tip a replay must end on: for recorded fixtures, the canonical tip their README gives (the highest of them when
 * several files are replayed into one system: the later files are forks of a shared genesis); for a generated chain,
 * its last block (it has no forks).
 */
export function expectedTip(events: RecordedEvent[], fixtureFiles: string[] = []): ExpectedTip {
  if (fixtureFiles.length > 0) {
    const tips = fixtureFiles.map((f) => {
      const tip = EXPECTED_TIPS[f];
      if (!tip) throw new Error(`no expected tip for fixture ${f}`);
      return tip;
    });
    return tips.reduce((a, b) => (b.height > a.height ? b : a));
  }
  const last = events.findLast((e) => e.path === '/new_block');
  if (!last) throw new Error('no block in the events');
  const body = JSON.parse(last.body) as { block_height: number; index_block_hash: string };
  return { height: body.block_height, indexBlockHash: body.index_block_hash };
}

/**
 * Checks that a run did all its work: nothing dead-lettered, and the indexer's canonical tip is the expected one.
 * Throws `BenchInvalidError` otherwise: the run's figures would measure a system that skipped work.
 */
export async function checkIngested(db: Knex, expected: ExpectedTip): Promise<void> {
  const dead = await db('dead_letters').select<Array<{ topic: string; position: string; path: string | null; reason: string }>>(
    'topic',
    'position',
    'path',
    'reason',
  );
  if (dead.length > 0) {
    const first = dead[0]!;
    throw new BenchInvalidError(
      `${dead.length} message(s) dead-lettered; first: ${first.topic}@${first.position} ${first.path ?? ''}: ${first.reason}`,
    );
  }
  const tip = (await db('chain_tip').first('block_height', 'index_block_hash')) as
    { block_height: number; index_block_hash: string } | undefined;
  if (tip?.block_height !== expected.height || tip.index_block_hash !== expected.indexBlockHash) {
    throw new BenchInvalidError(
      `tip ${tip ? `${tip.block_height} ${tip.index_block_hash}` : 'none'}, expected ${expected.height} ${expected.indexBlockHash}`,
    );
  }
}
