/**
 * The Mesh 1.5.1 OpenAPI document (`schemas/rosetta/mesh-api-1.5.1.json`) as a validator of `/rosetta/v1` answers:
 * a 200 against the path's response schema, anything else must be a 500 carrying an `Error`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { expect } from '@jest/globals';
import { expectMessage } from '@bda/test-support';

const SPEC_FILE = join(import.meta.dirname, '..', '..', '..', '..', 'schemas', 'rosetta', 'mesh-api-1.5.1.json');
type Json = Record<string, unknown>;
const spec = JSON.parse(readFileSync(SPEC_FILE, 'utf8')) as Json;
const SPEC_ID = 'https://schemas.bda.invalid/rosetta/mesh-api-1.5.1.json';

// OpenAPI 3.0 schema objects are JSON Schema plus a few keywords of their own (`example`, `format: int32`…).
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema({ $id: SPEC_ID, components: spec['components'] });

function refOf(path: string, status: '200' | '500'): string {
  const paths = spec['paths'] as Record<
    string,
    { post: { responses: Record<string, { content: Record<string, { schema: { $ref: string } }> }> } }
  >;
  const op = paths[path];
  if (!op) throw new Error(`no path ${path} in the Mesh specification`);
  return op.post.responses[status]!.content['application/json']!.schema.$ref;
}

/** Throws unless `body` matches the schema of `path`'s `status` answer. */
export function validateRosettaResponse(path: string, status: number, body: unknown): void {
  if (status !== 200 && status !== 500) throw new Error(`${path} answered HTTP ${status}: ${JSON.stringify(body)}`);
  const ref = refOf(path, status === 200 ? '200' : '500');
  const validate = ajv.getSchema(`${SPEC_ID}${ref}`);
  if (!validate) throw new Error(`no schema ${ref}`);
  if (!validate(body)) {
    throw new Error(
      `${path} ${status} does not match ${ref}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 2000)}`,
    );
  }
}

export interface RosettaAnswer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- schema-validated JSON the assertions read loosely
  body: any;
}

/** POSTs `body` (JSON, or a raw string sent as is) to `<baseUrl>/rosetta/v1<path>` and validates the answer. */
export async function rosettaPost(baseUrl: string, path: string, body: unknown, init: RequestInit = {}): Promise<RosettaAnswer> {
  const res = await fetch(`${baseUrl}/rosetta/v1${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  });
  const text = await res.text();
  expectMessage(`${path} content-type`, () => expect(res.headers.get('content-type') ?? '').toMatch(/^application\/json/));
  const parsed = JSON.parse(text) as unknown;
  validateRosettaResponse(path, res.status, parsed);
  return { status: res.status, body: parsed };
}
