import type { RosettaContext } from './rosetta-context';
import type { RosettaRoutes } from './rosetta-handler';

/** The Construction API (filled in by the construction step). */
export function rosettaConstructionRoutes(_ctx: RosettaContext): RosettaRoutes {
  return {};
}
