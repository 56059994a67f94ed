import type { Reporter, TestModule } from 'vitest/node';

/** Ends every run with the plain `N passed, N failed, N skipped` line that CI reads. */
export default class PlainSummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of modules) {
      const tests = [...module.children.allTests()];
      let failedHere = 0;
      for (const test of tests) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failedHere++;
        else skipped++;
      }
      // A file that failed to load, or whose beforeAll threw, failed even where none of its tests did
      // (they were skipped, or there are none): the line must not read `0 failed` then.
      if (module.state() === 'failed' && failedHere === 0) failedHere = 1;
      failed += failedHere;
    }
    failed += unhandledErrors.length;
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
