/**
 * The vitest configuration of `npm run test:mutation`: the project's suite, with only the test files of the modules
 * being mutated (test/mutation/modules.mjs; scripts/test-mutation.mjs names them in GYMCTL_MUTATE), so that each module
 * is held to its own tests and a run stays short.
 * Not Stryker's `testFiles` option: with it, Stryker 9 never activates a mutant of module-level code (a constant
 * pattern, a Set), and every such mutant survives whatever the tests say.
 */
import config, { suite } from '../../vitest.config.js';
import { RERUN_TIMEOUT_MS } from '../../scripts/mutation-gate.mjs';
import { MODULES } from './modules.mjs';

const selected = process.env.GYMCTL_MUTATE ? process.env.GYMCTL_MUTATE.split(',') : Object.keys(MODULES);

export default {
  define: config.define,
  test: {
    ...suite,
    // No check for processes left at the end: Stryker keeps vitest running in processes of its own between mutants.
    globalSetup: [],
    // A test still waiting at the second run's limit (the suite's own ceilings are minutes) fails, and its test process
    // goes on, where Stryker's time-out would start a new one; the gate reads that failure as a time-out, in either run
    // (statusOf in scripts/mutation-gate.mjs), so it is run again or counted as the second, never as a kill.
    testTimeout: RERUN_TIMEOUT_MS,
    hookTimeout: RERUN_TIMEOUT_MS,
    include: [...new Set(selected.flatMap((module) => MODULES[module] ?? []))],
  },
};
