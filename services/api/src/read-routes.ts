/**
 * The api's GET endpoints, written once against a small request/reply pair instead of express's, so that the api
 * serves them on plain node:http (`plainRoutes`, ahead of express) and an express app can still mount them
 * (`expressRouter`). Why: express's routing and response machinery cost more CPU per request than most of the reads
 * behind them (ADR 0030).
 *
 * A handler reads `req.params` (one path segment each, percent-decoded), `req.query` (node:querystring's parse, as
 * express's `simple` parser) and `req.headers`, and answers through `res` as it would through express's response:
 * `json`, `send` with `type`, `status`, `set`, `removeHeader`, `location`, and `end()` for an answer without a body
 * (`status(304)` from `respondNotModifiedIfFresh`, a `status(302)` redirect). Failures are thrown (`AppError`s, database errors) and mapped to the api's error bodies by the server.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { ParsedUrlQuery } from 'node:querystring';
import type { GetAnswer, GetRoute } from './plain-routes';

/** The `:name` parameters of an express-style path. */
type ParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamNames<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;

/** The parameters of a path known at compile time by name; of a path built at run time, any name (checked by its handler). */
type ParamsOf<P extends string> = string extends P ? Record<string, string> : { [K in ParamNames<P>]: string };

export interface ReadRequest<P extends string = string> {
  params: ParamsOf<P>;
  query: ParsedUrlQuery;
  headers: IncomingHttpHeaders;
}

/** What a handler answers: a status, headers and a body, built as on express's response. */
export class ReadReply {
  private code = 200;
  private contentType = 'application/json; charset=utf-8';
  private readonly headers: Record<string, string> = {};
  private body: string | Buffer | readonly string[] | undefined;

  status(code: number): this {
    this.code = code;
    return this;
  }

  /** One header (`name`, `value`) or several (an object). */
  set(name: string | Readonly<Record<string, string>>, value?: string): this {
    if (typeof name === 'string') this.headers[name] = value!;
    else Object.assign(this.headers, name);
    return this;
  }

  /** Where a redirect (`status(302)`) sends the client. */
  location(url: string): this {
    this.headers['Location'] = url;
    return this;
  }

  removeHeader(name: string): void {
    for (const key of Object.keys(this.headers)) if (key.toLowerCase() === name.toLowerCase()) delete this.headers[key];
  }

  /** A media type (`application/json`, `text/plain`), sent with `charset=utf-8` as express sends it. */
  type(type: string): this {
    this.contentType = type.includes('charset') ? type : `${type}; charset=utf-8`;
    return this;
  }

  json(body: unknown): void {
    this.contentType = 'application/json; charset=utf-8';
    this.body = JSON.stringify(body);
  }

  /**
   * The body as text, as its UTF-8 bytes (written as they are), or as the texts it is the concatenation of (written in
   * turn: a large spliced answer is not joined).
   */
  send(text: string | Buffer | readonly string[]): void {
    this.body = text;
  }

  /** An answer without a body (a 304, a redirect): no content type either, as express's `end()`. */
  end(): void {
    this.body = '';
    this.contentType = '';
  }

  /** The answer for the server. */
  answer(): GetAnswer {
    if (this.body === undefined) throw new Error('the handler ended without answering');
    return { body: this.body, status: this.code, contentType: this.contentType, headers: this.headers };
  }
}

export type ReadHandler<P extends string> = (req: ReadRequest<P>, res: ReadReply) => Promise<void> | void;

/** Collects a family's GET endpoints in order (the order is the matching order, as on an express router). */
export class ReadRoutes {
  readonly routes: GetRoute[] = [];

  /** `options.dataEpoch` false: an answer that depends on the clock (see `GetRoute.dataEpoch`). */
  get<P extends string>(path: P, handler: ReadHandler<P>, options: Pick<GetRoute, 'dataEpoch'> = {}): void {
    this.routes.push({
      path,
      ...options,
      async handle(params, query, headers) {
        const res = new ReadReply();
        await handler({ params: params as ReadRequest<P>['params'], query, headers }, res);
        return res.answer();
      },
    });
  }
}
