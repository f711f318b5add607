import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig, type ViteUserConfig } from 'vitest/config';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };
const cores = Math.max(2, availableParallelism());
/** An expected error is never passed by a throw of nothing. */
const throws = 'test/helpers/throws.ts';

/** The suite `npm test` runs (test/mutation/vitest.config.ts runs a part of it against each mutant). */
export const suite = {
  name: 'default',
  include: ['test/**/*.test.ts'],
  exclude: [...configDefaults.exclude, 'test/sea/**', 'test/wine/**'],
  // Both cores: test files run side by side (the e2e files spawn processes and wait on them).
  maxWorkers: cores,
  // The suite asserts what gymctl does, never how fast: a test waits for the event it needs (a line, an exit,
  // a request seen by the server). These limits are ceilings, so that a test that would wait forever fails
  // instead; a loaded machine may be slow, and must not fail for it.
  testTimeout: 180_000,
  // expect.poll's own default is a second.
  expect: { poll: { timeout: 60_000 } },
  hookTimeout: 180_000,
  // Every process a test starts ends with it (processes.ts), and the run fails if one outlives it
  // (no-leftovers.ts).
  setupFiles: ['test/helpers/processes.ts', throws],
  globalSetup: ['test/helpers/no-leftovers.ts'],
} satisfies ViteUserConfig['test'];

/**
 * Three projects: `default`, the suite `npm test` runs (and `vitest` alone); `sea`, the single executable's command
 * matrix (test/sea), which `npm run test:sea` builds the executable for and runs; `wine`, the Windows build of Node
 * under Wine (test/wine), which `npm run test:wine` installs and runs. Each is picked with `--project`.
 */
export default defineConfig({
  define: { __GYMCTL_VERSION__: JSON.stringify(version) },
  test: {
    // `vitest` alone runs `default`: the config file may give what `--project` gives (vitest reads both alike), though
    // the type of its `test` leaves it out.
    ...{ project: 'default' },
    projects: [
      { extends: true, test: suite },
      {
        extends: true,
        test: {
          name: 'sea',
          include: ['test/sea/**/*.test.ts'],
          // One file: its cases run side by side, a few per core, as each waits on its child processes most of the time.
          maxConcurrency: 2 * cores,
          testTimeout: 120_000,
          hookTimeout: 20_000,
          setupFiles: [throws],
        },
      },
      {
        extends: true,
        test: {
          name: 'wine',
          include: ['test/wine/**/*.test.ts'],
          // Each case waits on Wine most of the time; more than a few at once only queue on the shared wineserver.
          maxConcurrency: 4,
          testTimeout: 180_000,
          hookTimeout: 60_000,
          setupFiles: [throws],
        },
      },
    ],
  },
});
