export { rosettaRouter } from './rosetta-router';
export { DEFAULT_ROSETTA_OPTIONS, type RosettaOptions } from './routes/rosetta-context';
export { ROSETTA_ERRORS } from './mappers/rosetta-errors';
