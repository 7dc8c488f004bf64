import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    // End-to-end files start real servers and databases; give them room on a 2-core machine.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Property tests print their seed on failure; a fixed global seed is not set on purpose so CI
    // keeps exploring new cases.
  },
});
