import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

/** The single executable's command matrix (test/sea), apart from `npm test`: `npm run test:sea` builds the executable and runs it. */
export default defineConfig({
  define: { __GYMCTL_VERSION__: JSON.stringify(version) },
  test: {
    include: ['test/sea/**/*.test.ts'],
    // One file: its cases run side by side, a few per core, as each waits on its child processes most of the time.
    maxConcurrency: 2 * Math.max(2, availableParallelism()),
    testTimeout: 120_000,
    hookTimeout: 20_000,
    // An expected error is never passed by a throw of nothing.
    setupFiles: ['test/helpers/throws.ts'],
  },
});
