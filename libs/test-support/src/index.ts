export * from './free-port';
export * from './postgres-server';
export * from './test-database';
export * from './kafka-broker';
export * from './redis-server';
export * from './test-infra';
export * from './test-infra-setup';
export * from './expect-message';
