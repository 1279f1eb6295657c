export * from './bus';
export * from './envelope';
export * from './pg-log-bus';
export * from './kafka-bus';
export { DEFAULT_MAX_MESSAGE_BYTES, type KafkaBusOptions } from './kafka-bus-options';
export { BusRecordRejectedError } from './kafka-errors';
export { compressionFor } from './kafka-producer';
export * from './create-bus';
