/**
 * Every third-party package bundled into a shipped file has its notice in
 * dist/licenses/THIRD-PARTY-NOTICES. The packages are read here from the
 * build's metafiles (dist/meta-shipped.json: which source files each shipped
 * file holds), not from a list: a package the bundle takes in tomorrow needs
 * its notice too. `npm test` builds first.
 */
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

interface Metafile {
  outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
}

const DIST = path.join(ROOT, 'dist');
const meta = JSON.parse(readFileSync(path.join(DIST, 'meta-shipped.json'), 'utf8')) as Metafile;
const notices = readFileSync(path.join(DIST, 'licenses', 'THIRD-PARTY-NOTICES'), 'utf8');
const RULE = `${'='.repeat(78)}\n`;
/** The notices file's sections, by their first line (`name@version`). */
const sections = new Map(
  notices
    .split(RULE)
    .slice(1)
    .map((section) => [section.slice(0, section.indexOf('\n')), section] as const),
);

/** The folder of each package whose code is in a shipped file (`node_modules/a/node_modules/@b/c/x.js` is @b/c's). */
function bundledRoots(): string[] {
  const roots = new Set<string>();
  for (const output of Object.values(meta.outputs))
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
      if (match && bytesInOutput > 0) roots.add(realpathSync(path.resolve(ROOT, match[1]!)));
    }
  return [...roots];
}

describe('the licence notices of what gymctl bundles', () => {
  it('the metafile covers every JavaScript file the package ships', () => {
    const { files } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
    const shipped = files
      .filter((file) => file.startsWith('dist/'))
      .flatMap((file) => (file === 'dist/side' ? readdirSync(path.join(ROOT, file)).map((name) => `${file}/${name}`) : [file]))
      .filter((file) => /\.c?js$/.test(file));
    expect(shipped.length).toBeGreaterThan(5);
    // A file that only requires another shipped file (the CommonJS entry, dist/index.cjs) bundles nothing of its own.
    const onlyRequires = (file: string) => /^module\.exports = require\('\.\/[\w.]+'\);\n$/.test(readFileSync(path.join(ROOT, file), 'utf8'));
    for (const file of shipped) if (!onlyRequires(file)) expect(Object.keys(meta.outputs), file).toContain(file);
    expect(shipped.filter(onlyRequires)).toEqual(['dist/index.cjs']);
  });

  it('every bundled package has a section: name@version, its declared licence, and its licence file word for word', () => {
    const roots = bundledRoots();
    // The CLI bundle's parser, zod, undici, conf's tree, the picker's and jq-wasm, at the least.
    expect(roots.length).toBeGreaterThan(30);
    for (const root of roots) {
      const { name, version, license } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { name: string; version: string; license: string };
      const section = sections.get(`${name}@${version}`);
      expect(section, `no notice for ${name}@${version}`).toBeDefined();
      expect(section).toContain(`License: ${license}\n`);
      const licenceFiles = readdirSync(root).filter((file) => /^(licen[cs]e|copying)([.-].*)?$/i.test(file));
      expect(licenceFiles.length, `${name} has no licence file`).toBeGreaterThan(0);
      for (const file of licenceFiles) expect(section, `${name}'s ${file}`).toContain(readFileSync(path.join(root, file), 'utf8').trimEnd());
      expect(section).toMatch(/copyright|\(c\)/i);
    }
    // One section for each, and no other package: the count in the heading is theirs.
    expect(notices).toContain(`(${roots.length} packages,`);
  });

  it("keeps jq's and Oniguruma's notices, compiled into jq.wasm, beside their files of their own", () => {
    for (const [title, file] of [
      ['jq (compiled into dist/jq.wasm)', 'jq.txt'],
      ['Oniguruma (compiled into dist/jq.wasm, for jq)', 'oniguruma.txt'],
    ] as const) {
      const text = readFileSync(path.join(ROOT, 'licenses', file), 'utf8');
      expect(sections.get(title)).toContain(text.trimEnd());
      expect(readFileSync(path.join(DIST, 'licenses', file), 'utf8')).toBe(text);
    }
  });

  it('version --licenses loads its handler from a side file: nothing of it is on the start-up path of other commands', () => {
    const main = JSON.parse(readFileSync(path.join(DIST, 'meta.json'), 'utf8')) as Metafile;
    expect(Object.keys(main.outputs['dist/gymctl.cjs']!.inputs)).not.toContain('src/commands/version/run.ts');
    expect(Object.keys(main.outputs['dist/side/version.cjs']!.inputs)).toContain('src/commands/version/run.ts');
  });

  it('lists the packages sorted by name, each once', () => {
    const keys = [...sections.keys()].filter((key) => /.@\d/.test(key));
    const names = keys.map((key) => key.slice(0, key.lastIndexOf('@')));
    expect(names).toEqual([...names].sort());
    expect(notices.split(RULE).length - 1).toBe(sections.size);
  });
});
