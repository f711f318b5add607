/**
 * The vitest configuration of `npm run test:mutation`: the project's, with only the unit tests of the modules Stryker
 * mutates (stryker.config.mjs), so that each module is held to its own tests and a run stays short.
 * Not Stryker's `testFiles` option: with it, Stryker 9 never activates a mutant of module-level code (a constant
 * pattern, a Set), and every such mutant survives whatever the tests say.
 */
import config from '../../vitest.config.js';

export default {
  ...config,
  test: {
    ...config.test,
    // No check for processes left at the end: Stryker keeps vitest running in processes of its own between mutants.
    globalSetup: [],
    include: [
      'test/unit/ids.test.ts', // api/ids.ts, commands/shared/ids.ts
      'test/unit/decode-input.test.ts', // terminal/decode.ts
      'test/unit/loopback.test.ts', // api/transport/loopback.ts
      'test/unit/base-url.test.ts', // api/base-url.ts
      'test/unit/sanitize.test.ts', // output/sanitize.ts
      'test/unit/csv.test.ts', // output/csv.ts
      'test/unit/duration.test.ts', // cache/duration.ts
      'test/unit/tsv.test.ts', // output/tsv.ts
      'test/unit/exact-json.test.ts', // json/exact.ts
      'test/unit/retry.test.ts', // api/transport/retry.ts
      'test/unit/trusted-path.test.ts', // trusted-path.ts
      'test/unit/code-cache.test.ts', // startup/frame.ts, startup/secret.ts
      'test/unit/code-cache-paths.test.ts', // startup/secret.ts (where a secret may be made)
      'test/unit/code-cache-secret.test.ts', // startup/secret.ts
    ],
  },
};
