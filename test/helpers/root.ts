/**
 * Tests that give files and folders to another user need root. CI runs as
 * root, so there a missing root fails the run; elsewhere the tests say why
 * they are skipped.
 */
export function needsRoot(tests: string, why: string): boolean {
  const isRoot = process.getuid?.() === 0;
  if (!isRoot && process.env.CI === 'true') throw new Error(`${tests} need root (CI runs as root)`);
  if (!isRoot) console.warn(`skipping ${tests}: they need root, ${why}`);
  return isRoot;
}

/** Runs `body` with no process.getuid, as on Windows. */
export function withoutUids<T>(body: () => T): T {
  const real = Object.getOwnPropertyDescriptor(process, 'getuid');
  Object.defineProperty(process, 'getuid', { value: undefined, configurable: true, writable: true });
  try {
    return body();
  } finally {
    if (real) Object.defineProperty(process, 'getuid', real);
  }
}
