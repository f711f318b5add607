import { MODULES } from './modules.mjs';

// Mutation testing of the modules that guard the key and the data: `npm run test:mutation` (not part of `npm test`).
// CONTRIBUTING.md ("Mutation testing") says how to run it; test/mutation/equivalent.json names each mutant left alive and why.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  // The tests of the modules being mutated alone: test/mutation/vitest.config.ts picks them.
  vitest: { configFile: 'test/mutation/vitest.config.ts', related: true },
  // Every guarded module, with the tests run against it: test/mutation/modules.mjs.
  mutate: Object.keys(MODULES),
  // Stryker rewrites the tsconfig's `extends` and `references` through the TypeScript API, which TypeScript 7 (native) no longer
  // has; ours point nowhere outside the sandbox, so there is nothing to rewrite: no file by this name turns the rewrite off.
  tsconfigFile: 'no-tsconfig-to-rewrite',
  // Each mutant runs only the tests that reach it; a mutant of module-level code runs them all, in a fresh module graph.
  coverageAnalysis: 'perTest',
  concurrency: 2,
  // A mutant that loops forever in mutated code is stopped by Stryker's count of its hits (100 times the unmutated run's);
  // one that loops elsewhere, or never settles a promise, is stopped after this margin over the unmutated run's time.
  timeoutMS: 3000,
  // The JSON report is what scripts/mutation-gate.mjs judges after the run (each module's score, the mutants left
  // alive against test/mutation/equivalent.json); it stays in reports/ (ignored by git), so that timeouts can be read.
  reporters: ['progress', 'clear-text', 'json'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { reportMutants: false, reportTests: false },
  thresholds: { high: 95, low: 90, break: null },
  // The sandbox is a copy of the project inside it (ignored by git and Biome), removed after every run, failed or not.
  ignorePatterns: ['dist', 'reports'],
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
