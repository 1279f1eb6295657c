import { toEventJson, type DbEvent } from '@bda/db';
import type { TransactionEventResponse } from '../../api-types';

/**
 * A stored node event in the reference API's transaction-event shape: the mapper of `@bda/db` (`event-json`), which
 * the indexer also uses to keep each event's answer text (`events.json`, migration 101). Event types this api does
 * not know yet map to `null`.
 */
export function toEventResponse(e: DbEvent): TransactionEventResponse | null {
  return toEventJson(e);
}

/** Events in order, leaving out the kinds this api does not know. */
export function toEventResponses(events: DbEvent[]): TransactionEventResponse[] {
  return events.flatMap((e) => toEventResponse(e) ?? []);
}
