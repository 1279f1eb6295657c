/** A contract ABI's types and argument names as the reference shows them: one definition, in `@bda/db`. */
export { abiTypeString, namedFromAbi } from '@bda/db';
