/** `gymctl version --licenses`: where the third-party notices are, and how many packages they cover. Loaded only when asked. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { GymctlError } from '../../api/errors.js';
import type { Factory } from '../../factory.js';

declare const __LICENSES__: string | undefined;

/** dist/licenses/THIRD-PARTY-NOTICES, written by the build (build/index.mjs): beside the side file, or from the source in a clone. */
export const noticesPath = (): string =>
  fileURLToPath(typeof __LICENSES__ === 'string' ? new URL(__LICENSES__, import.meta.url) : new URL('../../../dist/licenses/THIRD-PARTY-NOTICES', import.meta.url));

const RULE = `${'='.repeat(78)}\n`;

export function runLicenses(f: Factory): void {
  const file = noticesPath();
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new GymctlError('internal', `the third-party notices are missing (${file}): reinstall gymctl, or in a clone run npm run build`);
  }
  // A section a package (`name@version` on its first line), or a work compiled into jq.wasm.
  const sections = text.split(RULE).slice(1);
  const packages = sections.filter((section) => /^\S+@\d\S*\n/.test(section)).length;
  f.io.out(
    `gymctl bundles ${packages} third-party packages, and ${sections.length - packages} works compiled into jq.wasm (jq, Oniguruma).\nTheir licence notices, each with its licence text:\n${file}\n`,
  );
}
