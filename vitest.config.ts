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
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
