import { listOperations, type JsonObject } from './openapi';
import { echo } from './params';

/** A documented path: its template, a pattern capturing each `{name}` segment, and the methods it takes. */
export interface PathTemplate {
  template: string;
  pattern: RegExp;
  names: string[];
  methods: string[];
}

/** The document's paths, each with the methods it takes (`HEAD` wherever `GET` is). */
export function pathTemplates(document: JsonObject): PathTemplate[] {
  const methods = new Map<string, Set<string>>();
  for (const { method, path } of listOperations(document)) {
    const set = methods.get(path) ?? new Set<string>();
    set.add(method.toUpperCase());
    if (method === 'get') set.add('HEAD');
    methods.set(path, set);
  }
  return [...methods].map(([template, set]) => {
    const names = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    const literals = template.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    return { template, pattern: new RegExp(`^${literals.join('([^/]+)')}/?$`), names, methods: [...set] };
  });
}

/** The template `path` (raw, not decoded) falls under, with its raw parameter values by name. */
export function matchPath(
  templates: readonly PathTemplate[],
  path: string,
): { template: PathTemplate; values: Record<string, string> } | undefined {
  for (const template of templates) {
    const m = template.pattern.exec(path);
    if (!m) continue;
    const values: Record<string, string> = {};
    template.names.forEach((name, i) => (values[name] = m[i + 1]!));
    return { template, values };
  }
  return undefined;
}

/** The message for a path parameter that is not valid percent-encoding, naming it. */
export function undecodableParamMessage(name: string, raw: string): string {
  return `${name}: not valid percent-encoding, got ${echo(raw)}`;
}
