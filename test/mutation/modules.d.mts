// Types of modules.mjs, for the tests that import it.
export const MODULES: Record<string, string[]>;
export const PENDING: string[];
