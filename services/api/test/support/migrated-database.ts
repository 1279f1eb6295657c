import pg from 'pg';
import { createDb, migrateLatest } from '@bda/db';
import { createTestDatabase, testInfra } from '@bda/test-support';

/** The migrated empty database of this test process, made once: the template of `migratedDatabase`. */
let template: Promise<string> | undefined;

/**
 * The URL of a new, migrated, empty database (`label` in its name), for a test that applies records itself through
 * the indexer's handler: a copy of a template migrated once per test process (`CREATE DATABASE … TEMPLATE`, a file
 * copy taking milliseconds, instead of running every migration again).
 */
export async function migratedDatabase(label: string): Promise<string> {
  template ??= (async () => {
    const url = await createTestDatabase(testInfra().databaseUrl, 'migrated_tpl');
    const db = createDb({ connectionString: url, maxConnections: 1 });
    await migrateLatest(db);
    await db.destroy();
    return new URL(url).pathname.slice(1);
  })();
  const from = await template;
  const url = new URL(await createTestDatabase(testInfra().databaseUrl, label));
  const name = url.pathname.slice(1);
  const client = new pg.Client(testInfra().databaseUrl);
  await client.connect();
  try {
    await client.query(`DROP DATABASE ${name}`);
    await client.query(`CREATE DATABASE ${name} TEMPLATE ${from}`);
  } finally {
    await client.end();
  }
  return url.toString();
}
