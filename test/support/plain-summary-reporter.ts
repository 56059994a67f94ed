import type { Reporter, TestModule } from 'vitest/node';

/** Ends every run with the plain `N passed, N failed, N skipped` line that CI reads. */
export default class PlainSummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of modules) {
      const tests = [...module.children.allTests()];
      // A file that failed to load has no tests, but it is still a failure.
      if (module.state() === 'failed' && tests.length === 0) failed++;
      for (const test of tests) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
    }
    failed += unhandledErrors.length;
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
