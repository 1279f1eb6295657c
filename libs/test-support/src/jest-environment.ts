import { TestEnvironment } from 'jest-environment-node';
import type { EnvironmentContext, JestEnvironmentConfig } from '@jest/environment';
import type { Circus } from '@jest/types';

/**
 * jest's node environment with a test and a hook timeout per project (`testEnvironmentOptions.testTimeout` /
 * `hookTimeout`): jest itself has one global `testTimeout` and gives hooks the same.
 */
export default class BdaTestEnvironment extends TestEnvironment {
  private readonly testTimeout: number | undefined;
  private readonly hookTimeout: number | undefined;

  constructor(config: JestEnvironmentConfig, context: EnvironmentContext) {
    super(config, context);
    const opts = config.projectConfig.testEnvironmentOptions;
    this.testTimeout = typeof opts['testTimeout'] === 'number' ? opts['testTimeout'] : undefined;
    this.hookTimeout = typeof opts['hookTimeout'] === 'number' ? opts['hookTimeout'] : undefined;
  }

  handleTestEvent(event: Circus.Event, state: Circus.State): void {
    // Each test's and hook's own timeout argument still wins (circus reads `timeout || state.testTimeout`).
    // (A test file's own jest.setTimeout, kept under this symbol, wins over the project's.)
    const fileTimeout = (this.global as Record<symbol, unknown>)[Symbol.for('TEST_TIMEOUT_SYMBOL')];
    if (event.name === 'run_start' && this.testTimeout && fileTimeout === undefined) state.testTimeout = this.testTimeout;
    if (event.name === 'add_hook' && this.hookTimeout) {
      const hook = state.currentDescribeBlock.hooks.at(-1);
      if (hook && hook.timeout === undefined) hook.timeout = this.hookTimeout;
    }
  }
}
