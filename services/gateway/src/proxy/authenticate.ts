import { RateLimitedError, ServiceUnavailableError, UnauthorizedError } from '@bda/common';
import type { AuthResult, KeyStore } from '../keys/key-store';
import type { GatewayMetrics } from '../metrics';
import type { LimitHeaders } from '../rate-limit/headers';
import type { InvalidKeyBudget } from '../rate-limit/invalid-key-budget';
import { anonymousSubject, keySubject, type PolicyConfig, type Subject } from '../rate-limit/policy';

export interface AuthenticateDeps {
  keys: Pick<KeyStore, 'verify' | 'peek'>;
  invalidKeys: InvalidKeyBudget;
  policy: PolicyConfig;
  /** Counts a request against a subject (limit-request.ts): its headers, or RateLimitedError. */
  limit: (subject: Subject) => Promise<LimitHeaders | undefined>;
  metrics: Pick<GatewayMetrics, 'auth'>;
}

export interface Identity {
  subject: Subject;
  /** The key's id, for the access log (never the key). */
  keyId?: string;
}

/**
 * Who is asking: the key presented in `x-api-key` (which must be valid), or else the client address (`address`, its
 * rate-limit identity). A request with a key that is not valid counts against the address's anonymous limit, and the
 * key store is protected from floods of made-up keys:
 *
 * - a key the cache knows (valid, unknown, revoked, or malformed) costs no lookup;
 * - from an address that presented an invalid key in the last minute, an unverified key is charged to the anonymous
 *   limit BEFORE it is looked up (429 once that is spent, and no lookup), and none is looked up at all once the address
 *   has spent its budget of invalid keys (InvalidKeyBudget);
 * - an invalid key is answered 401 once counted, or 429 when the anonymous limit was already spent.
 *
 * Valid keys from an address with no invalid key behind it are never charged to the anonymous limit.
 */
export async function authenticate(presented: string | undefined, address: string, deps: AuthenticateDeps): Promise<Identity> {
  const anonymous = anonymousSubject(address, deps.policy);
  if (presented === undefined || presented === '') {
    deps.metrics.auth.inc('anonymous');
    return { subject: anonymous };
  }
  const known = deps.keys.peek(presented);
  if (known?.status === 'valid') return valid(known, deps);
  if (known) return refuse(known.status, address, false, deps);

  let charged: LimitHeaders | undefined | false = false;
  if (deps.invalidKeys.suspect(address)) {
    charged = await deps.limit(anonymous);
    if (deps.invalidKeys.exhausted(address)) {
      deps.metrics.auth.inc('not_checked');
      const retryAfter = deps.invalidKeys.retryAfterSeconds(address);
      const err = new RateLimitedError(
        `too many invalid API keys from this client address; retry in ${retryAfter} s`,
        retryAfter,
      );
      err.headers = { ...charged, 'retry-after': String(retryAfter) };
      throw err;
    }
  }
  const auth = await deps.keys.verify(presented);
  if (auth.status === 'valid') return valid(auth, deps);
  if (auth.status === 'unavailable') {
    deps.metrics.auth.inc('unavailable');
    throw new ServiceUnavailableError('the API key could not be verified, try again');
  }
  return refuse(auth.status, address, charged, deps);
}

function valid(auth: Extract<AuthResult, { status: 'valid' }>, deps: AuthenticateDeps): Identity {
  deps.metrics.auth.inc('valid');
  return { subject: keySubject(auth.key.id, auth.key, deps.policy), keyId: auth.key.id };
}

/**
 * A key that is not valid: counted against the address's anonymous limit (unless `charged` already holds the headers of
 * that charge), then 401, or the 429 of the limit when it is spent.
 */
async function refuse(
  status: 'unknown' | 'revoked',
  address: string,
  charged: LimitHeaders | undefined | false,
  deps: AuthenticateDeps,
): Promise<never> {
  deps.metrics.auth.inc(status);
  // A revoked key is a real one, not a guess: it does not make the address suspect.
  if (status === 'unknown') deps.invalidKeys.record(address);
  const limitHeaders = charged === false ? await deps.limit(anonymousSubject(address, deps.policy)) : charged;
  const err = new UnauthorizedError(status === 'revoked' ? 'the API key has been revoked' : 'the API key is not valid');
  if (limitHeaders) err.headers = { ...limitHeaders };
  throw err;
}
