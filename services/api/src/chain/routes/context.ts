import type { Knex } from 'knex';
import type { PageLimits } from '../../env';

/** What every route module needs. */
export interface RouteContext {
  db: Knex;
  limits: PageLimits;
  serverVersion: string;
}
