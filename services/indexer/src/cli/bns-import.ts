/**
 * Imports the BNS genesis data (Stacks 1.0 names, namespaces, zonefiles and subdomains) into the indexer's database:
 *
 *   npm run bns-import -- <dir>
 *
 * `<dir>` holds `chainstate.txt`, `name_zonefiles.txt`, `subdomains.csv` and `subdomain_zonefiles.txt`, each plain
 * or gzipped (`.gz`), in the format of the Stacks 2.0 genesis data (`test/fixtures/bns-v1-import/` has a sample).
 * The database is the indexer's (DATABASE_URL); its migrations run first. Running it again changes nothing.
 * With REDIS_URL set (as the indexer's), each batch is fenced like the indexer's transactions (ADR 0048): the import may
 * run while the gateway serves kept answers.
 */
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { FenceWriter } from '@bda/answer-fence';
import { createDb } from '@bda/db';
import { importBnsGenesis } from '../bns/genesis-import';
import { migrateFenced } from '../data-epoch';
import { loadIndexerEnv } from '../env';

/** Where the import fences its batches (the indexer's `REDIS_URL`, `ANSWER_FENCE_PREFIX`, heartbeat). */
export interface BnsImportFence {
  url: string;
  prefix: string;
  heartbeatMs: number;
}

export async function runBnsImport(
  argv: string[],
  databaseUrl: string,
  out: (line: string) => void,
  fence?: BnsImportFence,
): Promise<number> {
  const [dir, ...rest] = argv;
  if (!dir || rest.length > 0) {
    out(
      'usage: npm run bns-import -- <dir with chainstate.txt[.gz], name_zonefiles.txt[.gz], subdomains.csv[.gz], subdomain_zonefiles.txt[.gz]>',
    );
    return 2;
  }
  const db = createDb({ connectionString: databaseUrl, maxConnections: 2, applicationName: 'bns-import' });
  const writer = fence && new FenceWriter({ ...fence, id: `bns-import-${randomUUID().slice(0, 8)}` });
  try {
    await writer?.start();
    const fenced = writer && ((epoch: number) => writer.fence(epoch));
    // Fenced around (they may change answers), as the indexer's start-up.
    await migrateFenced(db, fenced);
    const counts = await importBnsGenesis(db, dir, fenced);
    out(
      `bns-import: ${counts.namespaces} namespaces, ${counts.names} names, ${counts.zonefiles} zonefiles, ${counts.subdomains} subdomains new; ${counts.skipped} rows skipped`,
    );
    return 0;
  } finally {
    await writer?.stop();
    await db.destroy();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const env = loadIndexerEnv();
  const fence = env.REDIS_URL
    ? { url: env.REDIS_URL, prefix: env.ANSWER_FENCE_PREFIX, heartbeatMs: env.INDEXER_FENCE_HEARTBEAT_MS }
    : undefined;
  runBnsImport(process.argv.slice(2), env.DATABASE_URL, (line) => console.log(line), fence).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
