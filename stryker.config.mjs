// Mutation testing of the modules that guard the key and the data: `npm run test:mutation` (not part of `npm test`).
// CONTRIBUTING.md ("Mutation testing") says how to run it, and names each mutant left alive and why it is equivalent.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  // The unit tests of these modules alone: test/mutation/vitest.config.ts lists them.
  vitest: { configFile: 'test/mutation/vitest.config.ts', related: true },
  mutate: [
    'src/api/ids.ts',
    'src/commands/shared/ids.ts',
    // Ids and keys on stdin as text: UTF-8, or UTF-16 with its byte-order mark.
    'src/terminal/decode.ts',
    'src/api/transport/loopback.ts',
    'src/api/base-url.ts',
    'src/output/sanitize.ts',
    'src/output/csv.ts',
    'src/output/tsv.ts',
    'src/json/exact.ts',
    'src/api/transport/retry.ts',
    'src/cache/duration.ts',
    // The one path rule of the response cache, the config store and the code cache.
    'src/files/trusted-path.ts',
    // The code cache's frame and signature, and the secret it is signed with.
    'src/startup/frame.ts',
    'src/startup/secret.ts',
  ],
  // Stryker rewrites the tsconfig's `extends` and `references` through the TypeScript API, which TypeScript 7 (native) no longer
  // has; ours point nowhere outside the sandbox, so there is nothing to rewrite: no file by this name turns the rewrite off.
  tsconfigFile: 'no-tsconfig-to-rewrite',
  // Each mutant runs only the tests that reach it; a mutant of module-level code runs them all, in a fresh module graph.
  coverageAnalysis: 'perTest',
  concurrency: 2,
  // A mutant that loops forever in mutated code is stopped by Stryker's count of its hits (100 times the unmutated run's);
  // one that loops elsewhere, or never settles a promise, is stopped after this margin over the unmutated run's time.
  timeoutMS: 3000,
  // per-module: each module's score and its mutants left alive, and a failure when any module is under 90%.
  appendPlugins: ['./scripts/stryker-per-module.mjs'],
  reporters: ['progress', 'clear-text', 'per-module'],
  clearTextReporter: { reportMutants: false, reportTests: false },
  thresholds: { high: 95, low: 90, break: null },
  // The sandbox is a copy of the project inside it (ignored by git and Biome), removed after every run, failed or not.
  ignorePatterns: ['dist', 'reports'],
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
