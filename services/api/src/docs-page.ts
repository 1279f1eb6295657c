/**
 * `/docs`: a self-contained HTML page (no scripts, no CDN — the machine may be offline) rendering the endpoints of
 * the bundled OpenAPI document, with each component schema shown as JSON.
 */
import { listOperations, type JsonObject } from './openapi';

function esc(s: unknown): string {
  return String(s ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/** Inline `code` spans of the descriptions, after escaping. */
function text(s: unknown): string {
  return esc(s).replace(/`([^`]+)`/g, '<code>$1</code>');
}

function resolve(doc: JsonObject, node: JsonObject): JsonObject {
  const ref = node['$ref'];
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return node;
  let cur: unknown = doc;
  for (const part of ref.slice(2).split('/')) cur = (cur as JsonObject | undefined)?.[part];
  return (cur as JsonObject | undefined) ?? node;
}

function schemaLabel(schema: JsonObject | undefined): string {
  if (!schema) return '';
  const ref = schema['$ref'];
  if (typeof ref === 'string') {
    const name = ref.split('/').pop() ?? ref;
    return `<a href="#schema-${esc(name)}">${esc(name)}</a>`;
  }
  const parts: string[] = [];
  if (schema['type']) parts.push(esc(Array.isArray(schema['type']) ? schema['type'].join(' | ') : schema['type']));
  if (schema['minimum'] !== undefined) parts.push(`min ${esc(schema['minimum'])}`);
  if (schema['maximum'] !== undefined) parts.push(`max ${esc(schema['maximum'])}`);
  if (schema['default'] !== undefined) parts.push(`default ${esc(schema['default'])}`);
  if (schema['pattern'] !== undefined) parts.push(`pattern <code>${esc(schema['pattern'])}</code>`);
  return parts.join(', ');
}

function renderOperation(doc: JsonObject, method: string, path: string, op: JsonObject): string {
  const id = esc(op['operationId'] ?? `${method}-${path}`);
  const params = ((op['parameters'] ?? []) as JsonObject[]).map((p) => resolve(doc, p));
  const paramRows = params
    .map(
      (p) =>
        `<tr><td><code>${esc(p['name'])}</code></td><td>${esc(p['in'])}</td><td>${p['required'] ? 'yes' : 'no'}</td>` +
        `<td>${schemaLabel(p['schema'] as JsonObject | undefined)}</td><td>${text(p['description'])}</td></tr>`,
    )
    .join('');
  const responses = Object.entries((op['responses'] ?? {}) as JsonObject)
    .map(([status, r]) => {
      const res = resolve(doc, r as JsonObject);
      const content = (res['content'] ?? {}) as JsonObject;
      const [type, media] = Object.entries(content)[0] ?? [];
      const schema = (media as JsonObject | undefined)?.['schema'] as JsonObject | undefined;
      return `<tr><td>${esc(status)}</td><td>${text(res['description'])}</td><td>${esc(type ?? '')}</td><td>${schemaLabel(schema)}</td></tr>`;
    })
    .join('');
  return `<section class="op" id="${id}">
<h3><span class="method ${esc(method)}">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code></h3>
<p class="summary">${text(op['summary'])}</p>
${op['description'] ? `<p>${text(op['description'])}</p>` : ''}
${paramRows ? `<h4>Parameters</h4><table><tr><th>name</th><th>in</th><th>required</th><th>schema</th><th>description</th></tr>${paramRows}</table>` : ''}
<h4>Responses</h4><table><tr><th>status</th><th>description</th><th>type</th><th>schema</th></tr>${responses}</table>
</section>`;
}

export function renderDocsPage(doc: JsonObject): string {
  const info = (doc['info'] ?? {}) as JsonObject;
  const ops = listOperations(doc);
  const index = ops
    .map(
      ({ method, path, operation }) =>
        `<li><a href="#${esc(operation['operationId'] ?? `${method}-${path}`)}"><span class="method ${esc(method)}">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code></a> — ${text(operation['summary'])}</li>`,
    )
    .join('');
  const schemas = Object.entries(((doc['components'] as JsonObject | undefined)?.['schemas'] ?? {}) as JsonObject)
    .map(
      ([name, schema]) =>
        `<details id="schema-${esc(name)}"><summary><code>${esc(name)}</code> — ${text((schema as JsonObject)['description'])}</summary><pre>${esc(JSON.stringify(schema, null, 2))}</pre></details>`,
    )
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(info['title'])}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f;line-height:1.45}
code,pre{font-family:ui-monospace,monospace;font-size:.92em}pre{background:#f5f5f7;padding:.75rem;overflow:auto}
table{border-collapse:collapse;width:100%;margin:.5rem 0}td,th{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
.method{display:inline-block;min-width:3.5rem;text-align:center;border-radius:3px;color:#fff;font-weight:600;font-size:.8em;padding:.1rem .3rem}
.get{background:#0a7d32}.post{background:#0b5cad}.op{border-top:1px solid #ccc;margin-top:1.5rem}.summary{font-weight:600}
</style></head><body>
<h1>${esc(info['title'])}</h1>
<p>Version ${esc(info['version'])}. The machine-readable document is at <a href="/openapi.json"><code>/openapi.json</code></a>.</p>
<p>${text(info['description'])}</p>
<h2>Endpoints</h2><ul>${index}</ul>
${ops.map(({ method, path, operation }) => renderOperation(doc, method, path, operation)).join('\n')}
<h2>Schemas</h2>${schemas}
</body></html>`;
}
