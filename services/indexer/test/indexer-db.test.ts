import { describe, expect, it } from '@jest/globals';
import { createTestDatabase, testInfra } from '@bda/test-support';
import { createIndexerDb } from '../src/indexer-db';

describe('createIndexerDb', () => {
  it('plans every execution of its prepared statements for the tables as they are (ADR 0013)', async () => {
    const db = createIndexerDb(await createTestDatabase(testInfra().databaseUrl, 'indexer_db'));
    try {
      const setting = async (name: string) =>
        ((await db.raw(`SELECT current_setting('${name}') AS v`)) as { rows: Array<{ v: string }> }).rows[0]!.v;
      expect(await setting('plan_cache_mode')).toBe('force_custom_plan');
      expect(await setting('application_name')).toBe('indexer');
    } finally {
      await db.destroy();
    }
  });
});
