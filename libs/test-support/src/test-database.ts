import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** Creates a fresh, empty database on the server of `serverUrl` and returns its URL. */
export async function createTestDatabase(serverUrl: string, prefix = 'test'): Promise<string> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  const client = new pg.Client(serverUrl);
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
