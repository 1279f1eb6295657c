import type { ErrorRequestHandler, RequestHandler } from 'express';
import { InputError, sendError } from '@bda/common';
import { matchPath, type PathTemplate, undecodableParamMessage } from './path-templates';

/**
 * 405 with `Allow` for a request whose path is one of the document's but whose method is not (a `POST /extended`),
 * where it would otherwise fall through to the 404 of an unknown route. Placed after every route.
 */
export function methodNotAllowed(templates: readonly PathTemplate[]): RequestHandler {
  return (req, res, next) => {
    const match = matchPath(templates, req.path);
    if (!match) {
      next();
      return;
    }
    const allow = match.template.methods.join(', ');
    sendError(res, 405, 'method_not_allowed', `${req.method} is not allowed on ${req.path}; allowed: ${allow}`, {
      Allow: allow,
    });
  };
}

/**
 * Express refuses a path parameter that is not valid percent-encoding with "Failed to decode param '…'", which does
 * not say which parameter. This names it, from the document's template of the path.
 */
export function namedDecodeErrors(templates: readonly PathTemplate[]): ErrorRequestHandler {
  return (err, req, _res, next) => {
    const e = err as { status?: number; message?: string } | null;
    if (e?.status !== 400 || !e.message?.startsWith('Failed to decode param')) {
      next(err);
      return;
    }
    const match = matchPath(templates, req.path);
    const bad = Object.entries(match?.values ?? {}).find(([, raw]) => !decodes(raw));
    next(bad ? new InputError(undecodableParamMessage(bad[0], bad[1])) : err);
  };
}

function decodes(raw: string): boolean {
  try {
    decodeURIComponent(raw);
    return true;
  } catch {
    return false;
  }
}
