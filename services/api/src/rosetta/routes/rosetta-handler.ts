import type { Body } from './rosetta-request';

/** A Rosetta endpoint: the parsed JSON body in, the 200 body out; failures are thrown `RosettaError`s. */
type RosettaHandler = (body: Body) => Promise<object>;

/** Endpoints by path under `/rosetta/v1`. */
export type RosettaRoutes = Record<string, RosettaHandler>;
