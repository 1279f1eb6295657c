/**
 * The OpenAPI document in `schemas/` (the source of truth for paths and shapes): loading it with its component JSON
 * Schemas, and bundling it into one self-contained document for `/openapi.json` and `/docs`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { PageLimits } from './env';

/**
 * `schemas/` at the repository root: the nearest `schemas/openapi.json` above this module, which finds it from the
 * sources (`services/api/src`) and from the built bundle (`dist/`) alike. Override with `API_SCHEMAS_DIR`.
 */
export const DEFAULT_SCHEMAS_DIR = findSchemasDir(import.meta.dirname);

function findSchemasDir(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'schemas', 'openapi.json'))) return join(dir, 'schemas');
    if (dirname(dir) === dir) return resolve(from, '../../../schemas');
  }
}

/** Where component files live, relative to the document. */
export const COMPONENTS_PATH = 'components/schemas/';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface SchemaSources {
  /** The document as written (with relative `$ref`s to component files). */
  document: JsonObject;
  /** Component schemas by file name (`nakamoto-block.schema.json`). */
  components: Map<string, JsonObject>;
}

function readJson(path: string): JsonObject {
  return JSON.parse(readFileSync(path, 'utf8')) as JsonObject;
}

export function loadSchemaSources(dir: string = DEFAULT_SCHEMAS_DIR): SchemaSources {
  const componentsDir = join(dir, COMPONENTS_PATH);
  const components = new Map<string, JsonObject>();
  for (const file of readdirSync(componentsDir).sort()) {
    if (file.endsWith('.schema.json')) components.set(file, readJson(join(componentsDir, file)));
  }
  const document = readJson(join(dir, 'openapi.json'));
  mergeSchemaFragment(dir, RUNES_SCHEMAS_PATH, 'openapi-runes.json', document, components);
  mergeSchemaFragment(dir, NAMES_SCHEMAS_PATH, 'openapi-names.json', document, components);
  mergeSchemaFragment(dir, ACCOUNTS_SCHEMAS_PATH, 'openapi-accounts.json', document, components);
  mergeSchemaFragment(dir, CHAIN_SCHEMAS_PATH, 'openapi-chain.json', document, components);
  mergeSchemaFragment(dir, 'pox', 'openapi-pox.json', document, components);
  return { document, components };
}

/** Where the runes family keeps its JSON Schemas and OpenAPI fragment, relative to `schemas/`. */
export const RUNES_SCHEMAS_PATH = 'runes';

/** Where the accounts family (balances, ADR 0024) keeps its JSON Schemas and OpenAPI fragment, relative to `schemas/`. */
export const ACCOUNTS_SCHEMAS_PATH = 'accounts';

/** Where the chain family's newer endpoints (blocks, burn blocks, microblocks, mempool, stacking) keep theirs. */
export const CHAIN_SCHEMAS_PATH = 'chain';

/** Where the naming family (BNS) keeps its JSON Schemas and OpenAPI fragment, relative to `schemas/`. */
export const NAMES_SCHEMAS_PATH = 'names';

/**
 * Adds a family's folder of `schemas/` to the sources: its `*.schema.json` files as components (they `$ref` each other
 * by file name, like the other components) and its fragment's paths, tags and shared parameters (the runes family's
 * `RunesLimit` gets the limits the api applies, in `bundleOpenApi`). Nothing happens when the fragment is absent.
 */
export function mergeSchemaFragment(
  schemasDir: string,
  folder: string,
  fragmentFile: string,
  document: JsonObject,
  components: Map<string, JsonObject>,
): void {
  const dir = join(schemasDir, folder);
  if (!existsSync(join(dir, fragmentFile))) return;
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith('.schema.json')) continue;
    if (components.has(file)) throw new Error(`component schema ${file} exists twice (${folder}/ and another folder)`);
    components.set(file, readJson(join(dir, file)));
  }
  const fragment = readJson(join(dir, fragmentFile));
  const paths = (document['paths'] ?? {}) as JsonObject;
  for (const [path, item] of Object.entries(fragment['paths'] as JsonObject)) {
    if (path in paths) throw new Error(`path ${path} is documented twice`);
    paths[path] = item;
  }
  document['paths'] = paths;
  document['tags'] = [...((document['tags'] ?? []) as JsonObject[]), ...((fragment['tags'] ?? []) as JsonObject[])];
  const own = (fragment['components'] as JsonObject | undefined)?.['parameters'] as JsonObject | undefined;
  if (!own) return;
  const docComponents = (document['components'] ?? {}) as JsonObject;
  const parameters = (docComponents['parameters'] ?? {}) as JsonObject;
  for (const [name, parameter] of Object.entries(structuredClone(own))) {
    if (name in parameters) throw new Error(`parameter ${name} is defined twice`);
    parameters[name] = parameter;
  }
  docComponents['parameters'] = parameters;
  document['components'] = docComponents;
}

/** `nakamoto-block.schema.json` → `NakamotoBlock`. */
export function componentName(file: string): string {
  return file
    .replace(/\.schema\.json$/, '')
    .split(/[-_]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
}

/** The component file a relative `$ref` points to (`./components/schemas/x.schema.json`, `./x.schema.json`). */
export function refFile(ref: string): string | undefined {
  const m = /^(?:\.\/)?(?:components\/schemas\/)?([a-z0-9-]+\.schema\.json)(#.*)?$/.exec(ref);
  return m?.[1];
}

function rewriteRefs(node: Json, rewrite: (ref: string) => string): Json {
  if (Array.isArray(node)) return node.map((n) => rewriteRefs(n, rewrite));
  if (node === null || typeof node !== 'object') return node;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) {
    out[k] = k === '$ref' && typeof v === 'string' ? rewrite(v) : rewriteRefs(v, rewrite);
  }
  return out;
}

function toComponentRef(ref: string): string {
  if (ref.startsWith('#')) return ref;
  const file = refFile(ref);
  if (!file) throw new Error(`unsupported $ref ${JSON.stringify(ref)} in the OpenAPI sources`);
  const fragment = ref.includes('#') ? ref.slice(ref.indexOf('#') + 1) : '';
  return `#/components/schemas/${componentName(file)}${fragment}`;
}

/**
 * One self-contained document: every component file under `components.schemas` by name, every file `$ref`
 * rewritten to `#/components/schemas/<Name>`, and the page-size rules set to the ones this process applies.
 */
export function bundleOpenApi(sources: SchemaSources, limits?: PageLimits): JsonObject {
  const doc = rewriteRefs(structuredClone(sources.document), toComponentRef) as JsonObject;
  const components = (doc['components'] ?? {}) as JsonObject;
  const schemas = (components['schemas'] ?? {}) as JsonObject;
  for (const [file, schema] of sources.components) {
    const name = componentName(file);
    if (name in schemas) throw new Error(`component schema ${name} is defined twice`);
    schemas[name] = rewriteRefs(structuredClone(schema), toComponentRef);
  }
  components['schemas'] = schemas;
  doc['components'] = components;
  if (limits) applyLimits(doc, limits);
  return doc;
}

function setLimit(parameter: JsonObject | undefined, rule: { default: number; max: number }): void {
  const schema = parameter?.['schema'] as JsonObject | undefined;
  if (!schema) return;
  schema['default'] = rule.default;
  schema['maximum'] = rule.max;
}

function applyLimits(doc: JsonObject, limits: PageLimits): void {
  const params = ((doc['components'] as JsonObject)['parameters'] ?? {}) as JsonObject;
  setLimit(params['TxLimit'] as JsonObject | undefined, limits.tx);
  setLimit(params['BlockLimit'] as JsonObject | undefined, limits.block);
  setLimit(params['RunesLimit'] as JsonObject | undefined, limits.runes);
  const txGet = ((doc['paths'] as JsonObject)['/extended/v1/tx/{tx_id}'] as JsonObject | undefined)?.['get'] as
    JsonObject | undefined;
  const eventLimit = (txGet?.['parameters'] as JsonObject[] | undefined)?.find((p) => p['name'] === 'event_limit');
  setLimit(eventLimit, limits.event);
}

export interface OperationSummary {
  method: string;
  path: string;
  operation: JsonObject;
}

/** Every operation of a document, in document order. */
export function listOperations(doc: JsonObject): OperationSummary[] {
  const out: OperationSummary[] = [];
  for (const [path, item] of Object.entries((doc['paths'] ?? {}) as JsonObject)) {
    for (const [method, operation] of Object.entries(item as JsonObject)) {
      if (['get', 'put', 'post', 'delete', 'patch', 'head', 'options'].includes(method)) {
        out.push({ method, path, operation: operation as JsonObject });
      }
    }
  }
  return out;
}
