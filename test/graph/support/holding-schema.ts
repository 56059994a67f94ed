// A typed run's schema whose check the test answers: the graph suites hold it to rest in `checkingOutput`.
import { expect } from 'vitest';

/** A Standard Schema whose check waits until the driver says how it went. */
export class HoldingSchema {
  private pending: ((valid: boolean) => void) | undefined;
  readonly schema = {
    '~standard': {
      version: 1 as const,
      vendor: 'holding',
      validate: (value: unknown) =>
        new Promise((resolve) => {
          this.pending = (valid) =>
            resolve(valid ? { value } : { issues: [{ message: 'not what was asked for' }] });
        }),
      jsonSchema: { input: () => ({ type: 'object' }), output: () => ({ type: 'object' }) },
    },
  };

  get waiting(): boolean {
    return this.pending !== undefined;
  }

  answer(valid: boolean): void {
    const pending = this.pending;
    expect(pending, 'a check is waiting').toBeDefined();
    this.pending = undefined;
    pending!(valid);
  }
}
