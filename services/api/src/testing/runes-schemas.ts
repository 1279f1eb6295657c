/**
 * Validates `/runes/v1` responses against `schemas/runes/` (the OpenAPI fragment says which JSON Schema each path
 * and status answers with). Tests fetch through `fetchRunes`, so every response they look at has also been checked.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import request from 'supertest';

export const RUNES_SCHEMAS_DIR = resolve(import.meta.dirname, '../../../../schemas/runes');
const BASE = 'https://schemas.bda.invalid/runes/';

type Json = Record<string, unknown>;
const readJson = (file: string) => JSON.parse(readFileSync(join(RUNES_SCHEMAS_DIR, file), 'utf8')) as Json;

const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
const files = readdirSync(RUNES_SCHEMAS_DIR).filter((f) => f.endsWith('.schema.json'));
for (const file of files) ajv.addSchema({ ...readJson(file), $id: BASE + file });
for (const file of files) ajv.getSchema(BASE + file); // compile all: dangling refs fail here

export const runesOpenApi = readJson('openapi-runes.json');
const paths = runesOpenApi['paths'] as Record<string, { get: { responses: Record<string, Json> } }>;
const templates = Object.keys(paths).map((template) => ({
  template,
  re: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));

function validator(template: string, status: number): ValidateFunction {
  const response = paths[template]!.get.responses[String(status)];
  if (!response) throw new Error(`openapi-runes.json declares no ${status} response for GET ${template}`);
  const schema = ((response['content'] as Json)['application/json'] as Json)['schema'] as { $ref: string };
  const fn = ajv.getSchema(BASE + schema.$ref);
  if (!fn) throw new Error(`no schema ${schema.$ref}`);
  return fn;
}

/** Throws unless `body` matches what the fragment declares for (path, status). */
export function validateRunesResponse(path: string, status: number, body: unknown): void {
  const pathname = new URL(path, 'http://x').pathname;
  const match = templates.find((t) => t.re.test(pathname)) ?? templates.find((t) => t.re.test(`${pathname}/`));
  if (!match) throw new Error(`no /runes/v1 path template matches ${pathname}`);
  const fn = validator(match.template, status);
  if (!fn(body)) {
    throw new Error(
      `GET ${path} ${status}: body does not match its schema: ${ajv.errorsText(fn.errors)}\n${JSON.stringify(body)}`,
    );
  }
}

let validated = 0;
export const validatedRunesResponses = () => validated;

/**
 * GET `path` through supertest from `target` (an express app or node:http listener, asked without a port of the
 * test's, or the base URL of a running system), parse JSON, validate against the schemas.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are schema-validated JSON that assertions read loosely
export async function fetchRunes<T = any>(
  target: Parameters<typeof request>[0],
  path: string,
): Promise<{ status: number; body: T; headers: Record<string, string | string[] | undefined> }> {
  const res = await request(target).get(path);
  const type = String(res.headers['content-type'] ?? '');
  if (!type.startsWith('application/json')) throw new Error(`GET ${path} answered ${res.status} with content-type ${type}`);
  const body = JSON.parse(res.text) as T;
  validateRunesResponse(path, res.status, body);
  validated++;
  return { status: res.status, body, headers: res.headers };
}
