declare const __GYMCTL_VERSION__: string | undefined;

/** Set from package.json at build time (and by the test config). */
export const VERSION: string = typeof __GYMCTL_VERSION__ === 'string' ? __GYMCTL_VERSION__ : '0.0.0-dev';
