/**
 * Imports the BNS genesis data (Stacks 1.0 names, namespaces, zonefiles and subdomains) into the indexer's database:
 *
 *   npm run bns-import -- <dir>
 *
 * `<dir>` holds `chainstate.txt`, `name_zonefiles.txt`, `subdomains.csv` and `subdomain_zonefiles.txt`, each plain
 * or gzipped (`.gz`), in the format of the Stacks 2.0 genesis data (`test/fixtures/bns-v1-import/` has a sample).
 * The database is the indexer's (DATABASE_URL); its migrations run first. Running it again changes nothing.
 */
import { pathToFileURL } from 'node:url';
import { createDb, migrateLatest } from '@bda/db';
import { importBnsGenesis } from '../bns/genesis-import';
import { loadIndexerEnv } from '../env';

export async function runBnsImport(argv: string[], databaseUrl: string, out: (line: string) => void): Promise<number> {
  const [dir, ...rest] = argv;
  if (!dir || rest.length > 0) {
    out(
      'usage: npm run bns-import -- <dir with chainstate.txt[.gz], name_zonefiles.txt[.gz], subdomains.csv[.gz], subdomain_zonefiles.txt[.gz]>',
    );
    return 2;
  }
  const db = createDb({ connectionString: databaseUrl, maxConnections: 2, applicationName: 'bns-import' });
  try {
    await migrateLatest(db);
    const counts = await importBnsGenesis(db, dir);
    out(
      `bns-import: ${counts.namespaces} namespaces, ${counts.names} names, ${counts.zonefiles} zonefiles, ${counts.subdomains} subdomains new; ${counts.skipped} rows skipped`,
    );
    return 0;
  } finally {
    await db.destroy();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const env = loadIndexerEnv();
  runBnsImport(process.argv.slice(2), env.DATABASE_URL, (line) => console.log(line)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
