import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

export default defineConfig({
  define: { __GYMCTL_VERSION__: JSON.stringify(version) },
  test: {
    include: ['test/**/*.test.ts'],
    // The single executable's matrix needs the executable: `npm run test:sea` (vitest.sea.config.ts); the Windows
    // build of Node under Wine, `npm run test:wine` (vitest.wine.config.ts).
    exclude: [...configDefaults.exclude, 'test/sea/**', 'test/wine/**'],
    // Both cores: test files run side by side (the e2e files spawn processes and wait on them).
    maxWorkers: Math.max(2, availableParallelism()),
    // The suite asserts what gymctl does, never how fast: a test waits for the event it needs (a line, an exit, a
    // request seen by the server). These limits are ceilings, so that a test that would wait forever fails instead;
    // a loaded machine may be slow, and must not fail for it.
    testTimeout: 180_000,
    // expect.poll's own default is a second.
    expect: { poll: { timeout: 60_000 } },
    hookTimeout: 180_000,
    // Every process a test starts ends with it (processes.ts), and the run fails if one outlives it (no-leftovers.ts);
    // an expected error is never passed by a throw of nothing (throws.ts).
    setupFiles: ['test/helpers/processes.ts', 'test/helpers/throws.ts'],
    globalSetup: ['test/helpers/no-leftovers.ts'],
  },
});
