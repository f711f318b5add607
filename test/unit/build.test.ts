/**
 * What the build itself does, beside what it outputs (bundle.test.ts reads that): its interventions in third-party code
 * (build/common.mjs), each run through esbuild on a copy of the upstream file it changes, take on the file as the
 * package ships it, and fail the build, naming the package and the intervention, when the text they rely on is gone or
 * when the package changed so that they never apply; and a build leaves the builder's home and folders as they were.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Metafile, type Plugin, stop } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const common = (await import(pathToFileURL(path.join(ROOT, 'build', 'common.mjs')).href)) as {
  UPSTREAM: Record<string, readonly [file: string, text: string]>;
  inPackage(name: string): RegExp;
} & Record<string, Plugin>;

const scratch = mkdtempSync(path.join(tmpdir(), 'gymctl-interventions-'));
// esbuild's service, a child process, started for the file (a child a test starts ends with the test: processes.ts).
beforeAll(() => build({ stdin: { contents: '' }, write: false }));
afterAll(async () => {
  await stop();
  rmSync(scratch, { recursive: true, force: true });
  expect(existsSync(scratch)).toBe(false);
});

/** Everything the copied file imports stays out of the bundle, but what the intervention takes first. */
const outside: Plugin = {
  name: 'outside',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => (args.kind === 'entry-point' ? undefined : { path: args.path, external: true }));
  },
};

let folders = 0;
/** Bundles a copy of `upstream` (a path under node_modules), as `edit` leaves it and under the name `as`, with `plugin`. */
function bundle(plugin: Plugin, upstream: string, edit = (source: string) => source, as = upstream) {
  const file = path.join(scratch, String(folders++), as);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, edit(readFileSync(path.join(ROOT, upstream), 'utf8')));
  return build({ entryPoints: [file], bundle: true, write: false, platform: 'node', format: 'cjs', logLevel: 'silent', metafile: true, plugins: [plugin, outside] });
}

const holds = (metafile: Metafile, input: string) => Object.keys(metafile.inputs).some((name) => name.endsWith(input));
const CASES = [
  {
    plugin: 'whenExitOnExitOnly',
    upstream: 'whenExit',
    took: ({ metafile }: { metafile: Metafile }) => holds(metafile, 'src/config/when-exit.ts'),
    // when-exit imported under another name: the text is still there, in a comment.
    moved: { edit: (source: string) => source.replace("from 'when-exit'", "from 'when-exit/dist/node.js' /* from 'when-exit' */") },
  },
  {
    plugin: 'lazyChildProcess',
    upstream: 'childProcess',
    took: ({ metafile }: { metafile: Metafile }) => holds(metafile, 'lazy:child_process'),
    moved: { edit: (source: string) => source.replace("require('node:child_process')", "require(['node:child_process'][0]) /* require('node:child_process') */") },
  },
  {
    plugin: 'envPathsUnused',
    upstream: 'envPaths',
    took: ({ metafile }: { metafile: Metafile }) => holds(metafile, 'unused:env-paths'),
    moved: { edit: (source: string) => source.replace("from 'env-paths'", "from './env-paths.js'") },
  },
  {
    plugin: 'jqOutputAsItComes',
    upstream: 'jqSink',
    took: ({ outputFiles }: { outputFiles: Array<{ text: string }> }) => outputFiles[0]!.text.includes('__gymctlJqOutput'),
    // The file the intervention changes renamed.
    moved: { as: 'node_modules/jq-wasm/dist/index.js' },
  },
] as const;

describe("the build's interventions in third-party code (build/common.mjs)", () => {
  it.each(CASES)('$plugin: takes on the file as the package ships it', async ({ plugin, upstream, took }) => {
    const result = await bundle(common[plugin]!, common.UPSTREAM[upstream]![0]);
    expect(took(result)).toBe(true);
  });

  it.each(CASES)('$plugin: fails the build, naming the package and itself, when the text it relies on is gone', async ({ plugin, upstream }) => {
    const [file, text] = common.UPSTREAM[upstream]!;
    const name = common[plugin]!.name;
    await expect(bundle(common[plugin]!, file, (source) => source.replace(text, '/* changed */'))).rejects.toThrow(
      `${file.split('/')[1]} changed: ${file} no longer has ${text}, which the build's ${name} relies on`,
    );
  });

  it.each(CASES)('$plugin: fails the build, naming the package and itself, when the package changed so that it never applies', async ({ plugin, upstream, moved }) => {
    const [file, text] = common.UPSTREAM[upstream]!;
    const name = common[plugin]!.name;
    const edit = 'edit' in moved ? moved.edit : undefined;
    // The text the check reads is still there: only what the intervention matches on moved.
    if (edit) expect(edit(readFileSync(path.join(ROOT, file), 'utf8'))).toContain(text);
    await expect(bundle(common[plugin]!, file, edit, 'as' in moved ? moved.as : file)).rejects.toThrow(
      `${file.split('/')[1]} changed: the build took in ${file.split('/')[1]} and ${name} never applied`,
    );
  });

  it("a package's files are matched with either separator, as on a Windows build host", () => {
    const atomically = common.inPackage('atomically');
    for (const file of ['/a/node_modules/atomically/dist/utils/temp.js', 'C:\\a\\node_modules\\atomically\\dist\\utils\\temp.js']) expect(atomically.test(file), file).toBe(true);
    expect(atomically.test('/a/node_modules/atomically-x/temp.js')).toBe(false);
    expect(common.inPackage('@scope/name').test('C:\\a\\node_modules\\@scope\\name\\index.js')).toBe(true);
  });
});

describe("the builder's own files", () => {
  it('a build reads and writes nothing in HOME, the XDG folders or %APPDATA%: each run of the CLI it makes has a home of its own, gone after', () => {
    const tree = path.join(scratch, 'tree');
    for (const name of ['bin', 'build', 'scripts', 'src', 'licenses', 'package.json', 'tsconfig.json']) cpSync(path.join(ROOT, name), path.join(tree, name), { recursive: true });
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(tree, 'node_modules'), 'junction');
    const builder = path.join(scratch, 'builder');
    const folders = {
      HOME: 'home',
      USERPROFILE: 'home',
      XDG_CONFIG_HOME: 'config',
      XDG_CACHE_HOME: 'cache',
      XDG_DATA_HOME: 'data',
      XDG_STATE_HOME: 'state',
      APPDATA: 'roaming',
      LOCALAPPDATA: 'local',
    };
    const env: NodeJS.ProcessEnv = { ...process.env, GYMCTL_CONFIG_DIR: path.join(builder, 'config', 'gymctl') };
    for (const [name, folder] of Object.entries(folders)) {
      env[name] = path.join(builder, folder);
      mkdirSync(env[name], { recursive: true });
    }
    // Every Node the build starts says where its home is.
    const [probe, log] = [path.join(scratch, 'probe.cjs'), path.join(scratch, 'runs.ndjson')];
    const said = `{ argv: process.argv, env: Object.fromEntries(${JSON.stringify(['GYMCTL_CONFIG_DIR', ...Object.keys(folders)])}.map((name) => [name, process.env[name]])) }`;
    writeFileSync(probe, `require('node:fs').appendFileSync(${JSON.stringify(log)}, JSON.stringify(${said}) + '\\n');\n`);
    const built = spawnSync(process.execPath, ['build/index.mjs'], { cwd: tree, env: { ...env, NODE_OPTIONS: `--require=${JSON.stringify(probe)}` }, encoding: 'utf8' });
    expect(built.status, `${built.stdout}${built.stderr}`).toBe(0);

    const runs = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { argv: string[]; env: Record<string, string | undefined> });
    // The help (bin/gymctl.cjs --help) and the man page's markdown (a bundle of the command tree, read from stdin).
    const cli = runs.filter(({ argv }) => argv.some((arg) => arg.endsWith('gymctl.cjs') || arg === '-'));
    expect(cli.length).toBeGreaterThanOrEqual(2);
    for (const { argv, env: theirs } of cli) {
      expect(theirs.GYMCTL_CONFIG_DIR, argv.join(' ')).toBeUndefined();
      for (const name of Object.keys(folders)) {
        expect(theirs[name], `${name} of ${argv.join(' ')}`).toBeDefined();
        expect(theirs[name]!.startsWith(builder), `${name} of ${argv.join(' ')}`).toBe(false);
        expect(existsSync(theirs[name]!), `${name} of ${argv.join(' ')}, after the build`).toBe(false);
      }
    }
    expect(readdirSync(builder, { recursive: true }).sort()).toEqual([...new Set(Object.values(folders))].sort());
  });
});
