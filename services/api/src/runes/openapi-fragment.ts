import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JsonObject } from '../openapi';

/** Where the runes family keeps its JSON Schemas and its OpenAPI fragment, relative to `schemas/`. */
export const RUNES_SCHEMAS_PATH = 'runes';
export const RUNES_FRAGMENT_FILE = 'openapi-runes.json';

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as JsonObject;

/**
 * Adds `schemas/runes/` to the OpenAPI sources: its `*.schema.json` files as components (they `$ref` each other by
 * file name, like the other components) and the fragment's paths, tags and parameters (`RunesLimit` gets the limits
 * the api applies with the others, in `bundleOpenApi`). Nothing happens when the folder is absent.
 */
export function mergeRunesFragment(schemasDir: string, document: JsonObject, components: Map<string, JsonObject>): void {
  const dir = join(schemasDir, RUNES_SCHEMAS_PATH);
  if (!existsSync(join(dir, RUNES_FRAGMENT_FILE))) return;
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith('.schema.json')) continue;
    if (components.has(file)) throw new Error(`component schema ${file} exists twice (components/ and runes/)`);
    components.set(file, readJson(join(dir, file)));
  }
  const fragment = readJson(join(dir, RUNES_FRAGMENT_FILE));
  const paths = (document['paths'] ?? {}) as JsonObject;
  for (const [path, item] of Object.entries(fragment['paths'] as JsonObject)) {
    if (path in paths) throw new Error(`path ${path} is documented twice`);
    paths[path] = item;
  }
  document['paths'] = paths;
  document['tags'] = [...((document['tags'] ?? []) as JsonObject[]), ...((fragment['tags'] ?? []) as JsonObject[])];
  const docComponents = (document['components'] ?? {}) as JsonObject;
  const parameters = (docComponents['parameters'] ?? {}) as JsonObject;
  const own = structuredClone((fragment['components'] as JsonObject)['parameters'] as JsonObject);
  for (const [name, parameter] of Object.entries(own)) {
    if (name in parameters) throw new Error(`parameter ${name} is defined twice`);
    parameters[name] = parameter;
  }
  docComponents['parameters'] = parameters;
  document['components'] = docComponents;
}
