// Builds gymctl: the CLI as one bundle, dependencies included, split so that
// each command loads only what it needs; the library with its dependencies
// left to npm. `node esbuild.config.mjs` (npm run build runs it).
import { build } from 'esbuild';
import { readFileSync, writeFileSync } from 'node:fs';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  define: { __GYMCTL_VERSION__: JSON.stringify(version) },
  logLevel: 'warning',
};

const cli = await build({
  ...common,
  entryPoints: ['src/cli.ts'],
  outdir: 'dist',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  minify: true,
  metafile: true,
  // Bundled CommonJS dependencies call require(); ES modules have none.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
});
// Which source files each chunk holds: the test of what a command loads reads it.
writeFileSync('dist/meta.json', JSON.stringify(cli.metafile));

await build({
  ...common,
  entryPoints: ['src/index.ts'],
  outfile: 'dist/index.js',
  packages: 'external',
});
