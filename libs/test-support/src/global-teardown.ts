import { stopTestInfra } from './global-setup';

/** Jest's global teardown of the integration project: stops the PostgreSQL, Kafka and Redis of the global setup. */
export default async function teardown(): Promise<void> {
  await stopTestInfra();
}
