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
