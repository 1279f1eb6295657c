/**
 * Validates JSON bodies against the JSON Schemas in `schemas/` with ajv (draft 2020-12, the dialect of OpenAPI 3.1).
 * The tests run every response they receive through `validateResponse`, so the code's types cannot drift from the
 * schemas unnoticed.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { COMPONENTS_PATH, refFile, type JsonObject, type SchemaSources } from './openapi';

/** Base URI the component files are registered under, so their relative `$ref`s resolve between them. */
const BASE_URI = 'https://schemas.bda.invalid/';

export class SchemaValidationError extends Error {
  constructor(
    message: string,
    readonly errors: ErrorObject[],
  ) {
    super(message);
    this.name = 'SchemaValidationError';
  }
}

export class SchemaValidator {
  private readonly ajv: Ajv2020;
  private readonly inline = new Map<string, ValidateFunction>();

  constructor(private readonly sources: SchemaSources) {
    this.ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
    for (const [file, schema] of sources.components) {
      this.ajv.addSchema({ ...schema, $id: `${BASE_URI}${COMPONENTS_PATH}${file}` });
    }
  }

  /** Compiles every component (throws on an invalid schema or a dangling `$ref`). */
  compileAll(): void {
    for (const file of this.sources.components.keys()) this.componentValidator(file);
  }

  private componentValidator(file: string): ValidateFunction {
    const fn = this.ajv.getSchema(`${BASE_URI}${COMPONENTS_PATH}${file}`);
    if (!fn) throw new Error(`no component schema ${file}`);
    return fn;
  }

  private check(fn: ValidateFunction, data: unknown, what: string): void {
    if (fn(data)) return;
    const errors = fn.errors ?? [];
    const text = errors.map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`).join('; ');
    throw new SchemaValidationError(`${what} does not match its schema: ${text}`, errors);
  }

  /** Validates `data` against a component file (`nakamoto-block.schema.json`). */
  validateComponent(file: string, data: unknown): void {
    this.check(this.componentValidator(file), data, `value for ${file}`);
  }

  private resolveLocal(ref: string): JsonObject {
    if (!ref.startsWith('#/')) throw new Error(`not a local $ref: ${ref}`);
    let node: unknown = this.sources.document;
    for (const part of ref.slice(2).split('/')) node = (node as JsonObject | undefined)?.[part];
    if (!node || typeof node !== 'object') throw new Error(`dangling $ref ${ref}`);
    return node as JsonObject;
  }

  /** The validator the document declares for a response, or undefined when it declares no JSON body. */
  responseValidator(path: string, method: string, status: number): ValidateFunction | undefined {
    const paths = this.sources.document['paths'] as JsonObject;
    const operation = (paths[path] as JsonObject | undefined)?.[method] as JsonObject | undefined;
    if (!operation) throw new Error(`the OpenAPI document has no operation ${method.toUpperCase()} ${path}`);
    let response = (operation['responses'] as JsonObject)[String(status)] as JsonObject | undefined;
    if (!response) {
      throw new Error(`the OpenAPI document declares no ${status} response for ${method.toUpperCase()} ${path}`);
    }
    if (typeof response['$ref'] === 'string') response = this.resolveLocal(response['$ref']);
    const schema = ((response['content'] as JsonObject | undefined)?.['application/json'] as JsonObject | undefined)?.[
      'schema'
    ] as JsonObject | undefined;
    if (!schema) return undefined;
    const ref = schema['$ref'];
    if (typeof ref === 'string' && !ref.startsWith('#')) {
      const file = refFile(ref);
      if (!file) throw new Error(`unsupported $ref ${ref}`);
      return this.componentValidator(file);
    }
    const key = `${method} ${path} ${status}`;
    let fn = this.inline.get(key);
    if (!fn) {
      fn = this.ajv.compile(typeof ref === 'string' ? this.resolveLocal(ref) : schema);
      this.inline.set(key, fn);
    }
    return fn;
  }

  /**
   * Validates a response body against the schema the document declares for (path template, method, status).
   * Throws when the document does not declare that status for that operation.
   */
  validateResponse(path: string, method: string, status: number, body: unknown): void {
    const fn = this.responseValidator(path, method.toLowerCase(), status);
    if (fn) this.check(fn, body, `${method.toUpperCase()} ${path} ${status} body`);
  }
}
