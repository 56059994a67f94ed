import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
    setupFiles: ['./test/support/process-guard.ts'],
    reporters: ['default', './test/support/plain-summary-reporter.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
