// Types of targets.mjs, for the test that holds docs/performance.md to it.
export const TARGETS: Record<string, number>;
