import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

/** The Windows build of Node under Wine (test/wine), apart from `npm test`: `npm run test:wine` installs it and runs this. */
export default defineConfig({
  define: { __GYMCTL_VERSION__: JSON.stringify(version) },
  test: {
    include: ['test/wine/**/*.test.ts'],
    // Each case waits on Wine most of the time; more than a few at once only queue on the shared wineserver.
    maxConcurrency: 4,
    testTimeout: 180_000,
    hookTimeout: 60_000,
    // An expected error is never passed by a throw of nothing.
    setupFiles: ['test/helpers/throws.ts'],
  },
});
