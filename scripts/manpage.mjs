// Writes gymctl.1, the man page: markdown from the command tree itself
// (src/commands/manual.ts: each command's description, arguments, options
// and examples, the flag table, the exit codes, the environment), turned
// into roff by marked-man. `npm run build` runs it, so the page cannot
// drift from the help. The date is the build's, or SOURCE_DATE_EPOCH's.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { build } from 'esbuild';
import { withOwnHome } from '../build/common.mjs';

/** The page's markdown, from the sources, bundled and run once. */
async function markdown() {
  const bundle = await build({
    stdin: {
      contents: `import { buildProgram, TOP_EXAMPLES } from './src/program.ts';
import { manualMarkdown } from './src/commands/manual.ts';
const io = { out() {}, err() {} };
buildProgram({ io, factory: () => { throw new Error('no command runs here'); }, parsed() {} }).then((program) => process.stdout.write(manualMarkdown(program, TOP_EXAMPLES)));`,
      resolveDir: process.cwd(),
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    write: false,
    logLevel: 'warning',
    // The keyring client finds its agent with import.meta.url, which CommonJS lacks; this bundle only prints the manual and runs no command.
    logOverride: { 'empty-import-meta': 'silent' },
  });
  const run = withOwnHome((env) => spawnSync(process.execPath, ['--input-type=commonjs', '-'], { input: bundle.outputFiles[0].text, encoding: 'utf8', env }));
  if (run.status !== 0) throw new Error(`could not write the man page's markdown: ${run.stderr}`);
  return run.stdout;
}

export async function manPage(version) {
  const source = await markdown();
  // marked-man's command, as its package names it (its bin is not among its exports).
  const manifest = createRequire(import.meta.url).resolve('marked-man/package.json');
  const markedMan = path.join(path.dirname(manifest), JSON.parse(readFileSync(manifest, 'utf8')).bin['marked-man']);
  const roff = spawnSync(process.execPath, [markedMan, '--version', `gymctl ${version}`, '--manual', 'User Commands'], { input: source, encoding: 'utf8' });
  if (roff.status !== 0 || !roff.stdout.includes('.TH')) throw new Error(`marked-man failed: ${roff.stderr}`);
  return { roff: roff.stdout, markdown: source };
}
