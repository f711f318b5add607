/** `gymctl version --licenses`: where the third-party notices are, and how many packages they cover. Loaded only when asked. */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { GymctlError } from '../../api/errors.js';
import type { Factory } from '../../factory.js';

declare const __LICENSES__: string | undefined;

/** dist/licenses/THIRD-PARTY-NOTICES, written by the build (build/index.mjs): beside the side file, or from the source in a clone. */
export const noticesPath = (): string =>
  fileURLToPath(typeof __LICENSES__ === 'string' ? new URL(__LICENSES__, import.meta.url) : new URL('../../../dist/licenses/THIRD-PARTY-NOTICES', import.meta.url));

/** The single executable's API, where gymctl is one (`node:sea` is absent before Node 20.12 and 21.7). */
const sea = () => process.getBuiltinModule('node:sea') as { isSea(): boolean; getAsset(name: string, encoding: string): string } | undefined;

/**
 * Where the notices are said to be, in `gymctl version`'s words: their file, or, in the single executable whose cache
 * folder could not be written (read-only, full), the binary itself, which holds them (src/sea/main.ts).
 */
export function noticesPlace(): string {
  const file = noticesPath();
  if (!sea()?.isSea() || existsSync(file)) return file;
  return 'in this binary, which writes them to a file in its cache folder when it can: set XDG_CACHE_HOME to a writable folder of your own';
}

export function runLicenses(f: Factory): void {
  const file = noticesPath();
  let text: string;
  try {
    // The single executable's own copy: the same text, whether or not its folder could be written.
    text = sea()?.isSea() ? sea()!.getAsset('licenses/THIRD-PARTY-NOTICES', 'utf8') : readFileSync(file, 'utf8');
  } catch {
    throw new GymctlError('internal', `the third-party notices are missing (${file}): reinstall gymctl, or in a clone run npm run build`);
  }
  // A section a package (`name@version` on its first line), or a work compiled into jq.wasm.
  const sections = text.split(`${'='.repeat(78)}\n`).slice(1);
  const packages = sections.filter((section) => /^\S+@\d\S*\n/.test(section)).length;
  const place = noticesPlace();
  const where = place === file ? `Their licence notices, each with its licence text:\n${file}` : `Their licence notices, each with its licence text, are ${place}.`;
  f.io.out(`gymctl bundles ${packages} third-party packages, and ${sections.length - packages} works compiled into jq.wasm (jq, Oniguruma).\n${where}\n`);
}
