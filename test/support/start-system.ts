import { testInfra } from '@bda/test-support';
import type { ServiceName } from '../../scripts/lib/service-process';
import { TestSystem } from './test-system';

/** A TestSystem on the run's PostgreSQL and Kafka (from the global setup). */
export function startSystem(bus: 'kafka' | 'postgres', services?: ServiceName[], env?: NodeJS.ProcessEnv): Promise<TestSystem> {
  return TestSystem.start({ bus, serverUrl: testInfra().databaseUrl, kafkaBrokers: testInfra().kafkaBrokers, services, env });
}
