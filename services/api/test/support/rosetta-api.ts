/**
 * An api process-equivalent (`buildRequestListener`) with given Rosetta settings, listening on a free port: online on a
 * fresh migrated database, or offline with a database URL nothing listens on (any read would fail loudly).
 */
import type { Server } from 'node:http';
import type { Knex } from 'knex';
import { closeServer, createHttpServer, createLogger, createMetricsRegistry } from '@bda/common';
import { createDb, migrateLatest } from '@bda/db';
import { createTestDatabase } from '@bda/test-support';
import { buildRequestListener } from '../../src/build-app';
import type { RosettaOptions } from '../../src/rosetta';

export interface RosettaApi {
  baseUrl: string;
  db: Knex;
  close(): Promise<void>;
}

export async function startRosettaApi(serverUrl: string | null, rosetta: RosettaOptions): Promise<RosettaApi> {
  let db: Knex;
  if (serverUrl) {
    db = createDb({
      connectionString: await createTestDatabase(serverUrl, 'rosetta'),
      maxConnections: 4,
      applicationName: 'rosetta-test',
    });
    await migrateLatest(db);
  } else {
    // Port 9 (discard): nothing answers PostgreSQL there.
    db = createDb({
      connectionString: 'postgres://nobody:nothing@127.0.0.1:9/none',
      maxConnections: 1,
      applicationName: 'rosetta-offline',
    });
  }
  const listener = buildRequestListener({
    db,
    logger: createLogger('rosetta-test', 'silent'),
    metrics: createMetricsRegistry('api'),
    isShuttingDown: () => false,
    rosetta,
  });
  const server: Server = createHttpServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    db,
    close: async () => {
      await closeServer(server);
      await db.destroy();
    },
  };
}
