import { z } from 'zod';
import { parseEnv } from '@bda/common';

const pageLimit = (fallback: number) => z.coerce.number().int().min(1).max(10_000).default(fallback);

/** Page sizes of the `/runes/v1` lists (default 20, largest 60: the reference Runes API's, raised by config). */
export const runesEnvSchema = z
  .object({
    /** Default `limit` of every `/runes/v1` list. */
    API_RUNES_LIMIT_DEFAULT: pageLimit(20),
    /** Largest `limit` of every `/runes/v1` list; larger → 400. */
    API_RUNES_LIMIT_MAX: pageLimit(60),
  })
  .refine((env) => env.API_RUNES_LIMIT_DEFAULT <= env.API_RUNES_LIMIT_MAX, {
    message: 'must not exceed API_RUNES_LIMIT_MAX',
    path: ['API_RUNES_LIMIT_DEFAULT'],
  });

export interface RunesPageLimits {
  default: number;
  max: number;
}

export function runesPageLimitsFromEnv(source: NodeJS.ProcessEnv = process.env): RunesPageLimits {
  const env = parseEnv(runesEnvSchema, source);
  return { default: env.API_RUNES_LIMIT_DEFAULT, max: env.API_RUNES_LIMIT_MAX };
}
