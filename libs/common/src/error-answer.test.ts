import { describe, expect, it } from '@jest/globals';
import { toErrorAnswer } from './error-answer';
import {
  BadGatewayError,
  InputError,
  NotFoundError,
  RateLimitedError,
  RequestTimeoutError,
  ServiceUnavailableError,
  UnauthorizedError,
} from './errors';

describe('toErrorAnswer', () => {
  it('answers each typed error with its status, code, message and headers', () => {
    const cases: Array<[Error, number, string]> = [
      [new InputError('limit must be a number'), 400, 'invalid_request'],
      [new UnauthorizedError('the API key is not valid'), 401, 'unauthorized'],
      [new NotFoundError('no route for GET /metrics'), 404, 'not_found'],
      [new RequestTimeoutError('the request body did not arrive within 5 ms'), 408, 'request_timeout'],
      [new BadGatewayError('the node gave a broken answer'), 502, 'bad_gateway'],
      [new ServiceUnavailableError('no healthy node is available'), 503, 'service_unavailable'],
    ];
    for (const [err, status, error] of cases) {
      expect(toErrorAnswer(err)).toEqual({ status, headers: {}, body: { error, message: err.message }, unexpected: false });
    }
    const limited = new RateLimitedError('rate limit exceeded', 7);
    expect(toErrorAnswer(limited)).toEqual({
      status: 429,
      headers: { 'retry-after': '7' },
      body: { error: 'rate_limited', message: 'rate limit exceeded' },
      unexpected: false,
    });
  });

  it("answers the body parsers' errors as the client's", () => {
    expect(toErrorAnswer(Object.assign(new Error('too big'), { type: 'entity.too.large', limit: 100 }))).toMatchObject({
      status: 413,
      body: { error: 'payload_too_large', message: 'request body exceeds the limit of 100 bytes' },
    });
    expect(
      toErrorAnswer(Object.assign(new Error('Unexpected token'), { type: 'entity.parse.failed', status: 400 })),
    ).toMatchObject({
      status: 400,
      body: { error: 'invalid_json', message: 'request body is not valid JSON: Unexpected token' },
    });
    expect(toErrorAnswer(Object.assign(new Error('x'), { type: 'request.aborted' })).body.error).toBe('request_aborted');
    expect(toErrorAnswer(Object.assign(new Error('nope'), { statusCode: 405 }))).toMatchObject({
      status: 405,
      body: { error: 'invalid_request', message: 'nope' },
      unexpected: false,
    });
  });

  it('answers anything else 500 with a generic body that says nothing of the error', () => {
    for (const err of [new Error('password=hunter2 at db.internal:5432'), 'a string', undefined, { status: 502 }]) {
      expect(toErrorAnswer(err)).toEqual({
        status: 500,
        headers: {},
        body: { error: 'internal_error', message: 'an unexpected error occurred' },
        unexpected: true,
      });
    }
  });

  it('gives each answer its own headers object', () => {
    const err = new RateLimitedError('limited', 1);
    toErrorAnswer(err).headers.extra = 'x';
    expect(err.headers).toEqual({ 'retry-after': '1' });
  });
});
