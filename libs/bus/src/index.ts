export * from './bus';
export * from './envelope';
export * from './pg-log-bus';
export * from './kafka-bus';
export * from './create-bus';
