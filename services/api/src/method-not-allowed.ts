import type { RequestHandler } from 'express';
import { sendError } from '@bda/common';
import { listOperations, type JsonObject } from './openapi';

/**
 * 405 with `Allow` for a request whose path is one of the document's but whose method is not (a `POST /extended`),
 * where it would otherwise fall through to the 404 of an unknown route. Placed after every route.
 */
export function methodNotAllowed(document: JsonObject): RequestHandler {
  const allowed = new Map<string, Set<string>>();
  for (const { method, path } of listOperations(document)) {
    const methods = allowed.get(path) ?? new Set<string>();
    methods.add(method.toUpperCase());
    if (method === 'get') methods.add('HEAD');
    allowed.set(path, methods);
  }
  const routes = [...allowed].map(([path, methods]) => ({ pattern: templatePattern(path), allow: [...methods].join(', ') }));
  return (req, res, next) => {
    const route = routes.find((r) => r.pattern.test(req.path));
    if (!route) {
      next();
      return;
    }
    sendError(res, 405, 'method_not_allowed', `${req.method} is not allowed on ${req.path}; allowed: ${route.allow}`, {
      Allow: route.allow,
    });
  };
}

/** `/extended/v1/tx/{tx_id}` → a pattern where each `{name}` is one path segment. */
function templatePattern(template: string): RegExp {
  const parts = template.split(/\{[^}]+\}/).map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('[^/]+')}/?$`);
}
