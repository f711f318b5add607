// The licence notices of every third-party package the build bundles, from
// esbuild's metafiles: minifying drops their copyright lines, and MIT, ISC
// and BSD want the notice to travel with the code. The build writes them to
// dist/licenses/THIRD-PARTY-NOTICES (build/index.mjs).
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';

/** A package's folder from a metafile input (`node_modules/conf/node_modules/ajv/dist/x.js`, or through a link: `../x/node_modules/…`), else undefined. */
export function packageRoot(input) {
  const at = input.lastIndexOf('node_modules/');
  if (at === -1) return undefined;
  const [first, second] = input.slice(at + 'node_modules/'.length).split('/');
  return input.slice(0, at) + ['node_modules', first, ...(first.startsWith('@') ? [second] : [])].join('/');
}

/** Files that carry a package's licence: LICENSE, LICENCE, COPYING, with any ending (LICENSE.md, LICENSE-MIT), any case. */
const LICENCE_FILE = /^(licen[cs]e|copying)([.-].*)?$/i;

/**
 * Every package whose code is in an output file of `metafiles`: name,
 * version, licence and the text of its licence files, sorted by name then
 * version. A package without a licence file has none (`texts` is empty):
 * noticesText refuses it, for a person to decide its notice.
 */
export function bundledPackages(metafiles, cwd = process.cwd()) {
  const roots = new Set();
  for (const meta of metafiles)
    for (const output of Object.values(meta.outputs))
      for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
        const root = bytesInOutput > 0 ? packageRoot(input) : undefined;
        if (root) roots.add(realpathSync(path.resolve(cwd, root)));
      }
  const packages = new Map();
  for (const root of roots) {
    const { name, version, license } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
    // `"license": "SEE LICENSE IN <file>"` names the file itself.
    const named = typeof license === 'string' ? /^SEE LICEN[CS]E IN (.+)$/i.exec(license)?.[1] : undefined;
    const files = named
      ? [named]
      : readdirSync(root, { withFileTypes: true })
          .filter((entry) => entry.isFile() && LICENCE_FILE.test(entry.name))
          .map((entry) => entry.name)
          .sort();
    packages.set(`${name}@${version}`, {
      name,
      version,
      license: typeof license === 'string' ? license : (license?.type ?? 'UNKNOWN'),
      texts: files.map((file) => ({ file, text: readFileSync(path.join(root, file), 'utf8') })),
    });
  }
  return [...packages.values()].sort((a, b) => (a.name === b.name ? (a.version < b.version ? -1 : 1) : a.name < b.name ? -1 : 1));
}

/** The works compiled into jq.wasm, which have no package of their own: their notices, kept in licenses/. */
export const compiledIntoJq = (cwd = process.cwd()) =>
  [
    ['jq', 'jq (compiled into dist/jq.wasm)'],
    ['oniguruma', 'Oniguruma (compiled into dist/jq.wasm, for jq)'],
  ].map(([name, title]) => ({ title, text: readFileSync(path.join(cwd, 'licenses', `${name}.txt`), 'utf8') }));

const RULE = '='.repeat(78);

/**
 * THIRD-PARTY-NOTICES: a section per package, then one per work compiled
 * in without a package of its own (`extra`: `{ title, text }`, jq and
 * Oniguruma in jq.wasm). The same packages give the same bytes.
 */
export function noticesText(packages, extra = []) {
  const sections = packages.map(({ name, version, license, texts }) => {
    const head = `${name}@${version}\nLicense: ${license}`;
    if (texts.length === 0) {
      // No standard text is filled in for it: an MIT or BSD notice is its copyright line, which only the package can give.
      throw new Error(`${name}@${version} (${license}) ships no licence file (LICENSE, LICENCE, COPYING): its notice must be added by hand, as licenses/ has jq's`);
    }
    return `${head}\n\n${texts.map(({ file, text }) => (texts.length > 1 ? `${file}:\n\n` : '') + text.trimEnd()).join('\n\n')}\n`;
  });
  const others = extra.map(({ title, text }) => `${title}\n\n${text.trimEnd()}\n`);
  const all = [...sections, ...others];
  return `gymctl bundles the following third-party software (${packages.length} packages, and ${others.length} works compiled into dist/jq.wasm).
Each section gives the package's name@version, the licence its package.json declares, and the text of its licence file.

${all.map((section) => `${RULE}\n${section}`).join('\n')}`;
}
