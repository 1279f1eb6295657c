import type { IncomingMessage } from 'node:http';
import { InputError, NotFoundError } from '@bda/common';
import { checkTarget, isNodePath, matchRoute, type RouteSpec } from './allowlist';
import type { ForwardRoute, Forwarder } from './forward';
import { forwardedTarget } from './forwarded-request';
import { isInternalPath } from './internal-path';

export interface UpstreamChoice {
  target: 'node' | 'api';
  forwarder: Forwarder;
  route: ForwardRoute;
  /** The request target to send (the client's, checked, without any `x-api-key` parameter). */
  url: string;
}

export interface ChooseUpstreamDeps {
  nodeRoutes: readonly RouteSpec[];
  apiBodyLimit: number;
  nodes: Forwarder;
  api: Forwarder;
}

/**
 * Where a request goes: the node pool for allowlisted node RPC (`/v2/…` but `/v2/prices`, `/v3/…`), the api for the rest.
 * Throws InputError for a target that is not a plain path (allowlist.ts), NotFoundError for a `/v2` or `/v3` route outside the
 * allowlist and for the api's internal endpoints (internal-path.ts).
 */
export function chooseUpstream(req: IncomingMessage, deps: ChooseUpstreamDeps): UpstreamChoice {
  const url = req.url ?? '/';
  const method = req.method ?? '';
  const target = checkTarget(url);
  if (!target.ok) throw new InputError(target.message);
  if (isInternalPath(target.path)) throw new NotFoundError(`no route for ${method} ${target.path}`);
  if (isNodePath(target.path)) {
    const spec = matchRoute(deps.nodeRoutes, method, target.path);
    if (!spec) throw new NotFoundError(`${method} ${target.path} is not a proxied node RPC route`);
    return { target: 'node', forwarder: deps.nodes, route: spec, url: forwardedTarget(url) };
  }
  return {
    target: 'api',
    forwarder: deps.api,
    route: { retry: method === 'GET' || method === 'HEAD', bodyLimit: deps.apiBodyLimit },
    url: forwardedTarget(url),
  };
}
