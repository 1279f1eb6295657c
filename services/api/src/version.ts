import { readFileSync } from 'node:fs';

/** The api package's version: `../package.json` from the sources, `../services/api/package.json` from `dist/`. */
function packageVersion(): string {
  for (const path of ['../package.json', '../services/api/package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === '@bda/api' && pkg.version) return pkg.version;
    } catch {
      // not there
    }
  }
  return '0.0.0';
}

/** `server_version` of `GET /extended`. */
export const SERVER_VERSION = `bda-api ${packageVersion()}`;
