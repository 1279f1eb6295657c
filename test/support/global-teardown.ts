import { rmSync } from 'node:fs';
import { stopTestInfra } from '@bda/test-support/setup';

/** Jest's global teardown of the integration project: stops the infrastructure and removes the bundles of the setup. */
export default async function teardown(): Promise<void> {
  await stopTestInfra();
  if (process.env.BDA_BUNDLE_DIR) rmSync(process.env.BDA_BUNDLE_DIR, { recursive: true, force: true });
}
