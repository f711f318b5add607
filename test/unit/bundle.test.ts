/**
 * The guard on start-up cost, deterministic rather than timed: what each
 * path through the built CLI loads, read from esbuild's metafile (which
 * source files went into which file: the main file, dist/gymctl.cjs, and
 * the side files of the rare paths, dist/side/*.cjs).
 * `npm test` builds first; the e2e tests run the same build.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/operations/index.js';
import { ROOT } from '../helpers/cli.js';

interface Metafile {
  inputs: Record<string, { imports: Array<{ path: string; kind: string; external?: boolean }> }>;
  outputs: Record<string, { imports: Array<{ path: string; kind: string }>; inputs: Record<string, unknown>; entryPoint?: string }>;
}

/** The one table of side files (build/side-files.json): name → the module it is built from. */
const SIDE_FILES = JSON.parse(readFileSync(path.join(ROOT, 'build', 'side-files.json'), 'utf8')) as Record<string, string>;
const MANIFEST = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
const readMeta = (name: string) => JSON.parse(readFileSync(path.join(ROOT, 'dist', name), 'utf8')) as Metafile;
const meta = readMeta('meta.json');

const MAIN = 'dist/gymctl.cjs';
const inputsOf = (output: string) => Object.keys(meta.outputs[output]?.inputs ?? {});
const packages = (inputs: string[]) => [...new Set(inputs.filter((i) => i.includes('node_modules/')).map((i) => i.split('node_modules/').pop()!.split('/')[0]!))];
const sideFiles = () => Object.keys(meta.outputs).filter((output) => output.startsWith('dist/side/'));
/** The files holding code of a package (or source) matching `pattern`. */
const holders = (pattern: RegExp) => Object.keys(meta.outputs).filter((output) => inputsOf(output).some((input) => pattern.test(input)));

describe('what the built CLI loads', () => {
  it('--help: dist/boot.cjs answers it, built from the start-up code alone (--version is answered by bin/gymctl.cjs before it)', () => {
    expect(inputsOf('dist/boot.cjs').sort()).toEqual(['src/files/folders.ts', 'src/files/system.ts', 'src/files/trusted-path.ts', 'src/startup/boot.ts']);
  });

  it('a module of src/ in two files of the CLI holds no state one copy could set for the other (a class, a variable, a map)', () => {
    const shipped = Object.keys(meta.outputs).filter((output) => output.endsWith('.cjs'));
    const copies = (input: string) => shipped.filter((output) => inputsOf(output).includes(input)).length;
    const twice = [...new Set(shipped.flatMap(inputsOf))].filter((input) => input.startsWith('src/') && copies(input) > 1).sort();
    // The boot's: the folders and the path rule of the compile cache.
    for (const input of ['src/files/folders.ts', 'src/files/system.ts', 'src/files/trusted-path.ts']) expect(twice).toContain(input);
    // Each with why it is harmless twice: a memo of what the system has; the tunings tuneV8 made (the boot's and the main file's differ); and
    // classes whose instances never leave the boot (its one call into them is in a try that keeps every failure).
    const allowed: Record<string, string[]> = {
      'src/files/system.ts': ['class HomeFolderError', 'const tuned = new Set', 'class OddFileError', 'let procFd'],
    };
    for (const input of twice) {
      const state = [...readFileSync(path.join(ROOT, input), 'utf8').matchAll(/^(?:export )?(let \w+|var \w+|class \w+|const \w+ = new (?:Set|Map|WeakMap|WeakSet))/gm)];
      expect(
        state.map(([, what]) => what!),
        input,
      ).toEqual(allowed[input] ?? []);
    }
  });

  it("every declared operation's command and api run from one CommonJS file: the parser and zod, but no table, colour, config-writing, undici or sandbox code", () => {
    const inputs = inputsOf(MAIN);
    expect(packages(inputs).sort()).toEqual(['commander', 'zod']);
    for (const lazy of [
      'src/output/table.ts',
      'src/sandbox/server.ts',
      'src/sandbox/demo-data.ts',
      'src/keyring/client.ts',
      'src/output/jq.ts',
      'src/config/conf.ts',
      'src/config/lock.ts',
      'src/cache/store.ts',
      // Every other command, its definition and its handler: both are files apart.
      ...['auth', 'config', 'cache', 'schema', 'completion', 'complete', 'sandbox', 'doctor'].map((name) => `src/commands/${name}/run.ts`),
      ...['auth', 'config', 'cache', 'schema', 'completion', 'sandbox', 'doctor', 'mcp', 'version', 'help'].map((name) => `src/commands/${name}.ts`),
    ]) {
      expect(inputs, lazy).not.toContain(lazy);
    }
    // Every declaration, and the one command module that serves them all.
    for (const operation of OPERATIONS) expect(inputs).toContain(`src/operations/${operation.name}.ts`);
    for (const source of ['src/commands/operation.ts', 'src/commands/operation/run.ts', 'src/commands/api.ts', 'src/commands/api/run.ts', 'src/api/transport/loop.ts'])
      expect(inputs).toContain(source);
    // It runs as a script, through the code cache: no ES module syntax is left in it.
    const text = readFileSync(path.join(ROOT, MAIN), 'utf8');
    expect(text).not.toContain('import.meta');
    expect(text).not.toMatch(/\bimport\(/);
  });

  it('the heavy dependencies (undici, jq) each sit behind a side file of their own, which the main file requires only on their path', () => {
    expect(holders(/node_modules\/jq-wasm\//)).toEqual(['dist/side/output-jq.cjs']);
    for (const side of ['dist/side/output-jq.cjs', 'dist/side/undici.cjs'])
      expect(meta.outputs[MAIN]!.imports).toContainEqual(expect.objectContaining({ path: `./${side.slice('dist/'.length)}`, external: true }));
    expect(readFileSync(path.join(ROOT, 'dist', 'keyring-agent.cjs'), 'utf8')).toContain('@napi-rs/keyring');
  });

  it("a side file of a package the library depends on (undici) requires the copy npm installs, and carries none of the package's code", () => {
    const dependencies = Object.keys(MANIFEST.dependencies);
    const ofDependencies = Object.entries(SIDE_FILES).filter(([, source]) => dependencies.includes(source));
    expect(ofDependencies.map(([, source]) => source)).toEqual(['undici']);
    for (const [name, source] of ofDependencies) {
      const side = `dist/side/${name}.cjs`;
      expect(meta.outputs[side]!.imports).toEqual([{ path: source, kind: 'require-call', external: true }]);
      expect(holders(new RegExp(`node_modules/${source}/`)), `no file of the CLI holds ${source}'s code`).toEqual([]);
      expect(readFileSync(path.join(ROOT, side), 'utf8')).toContain(`module.exports=require(${JSON.stringify(source)});`);
    }
  });

  it('the native keyring module is in no file of the CLI: only the keyring agent, a process of its own, loads it', () => {
    const imports = Object.values(meta.outputs).flatMap((output) => output.imports.map((imported) => imported.path));
    expect(imports.some((imported) => imported.includes('@napi-rs/keyring'))).toBe(false);
    expect(
      Object.values(meta.outputs)
        .flatMap((output) => Object.keys(output.inputs))
        .some((input) => input.includes('@napi-rs/keyring')),
    ).toBe(false);
  });

  it('the side files are those of build/side-files.json, each loaded by the main file on its path and never folded into it', () => {
    expect(sideFiles().sort()).toEqual(
      Object.keys(SIDE_FILES)
        .map((name) => `dist/side/${name}.cjs`)
        .sort(),
    );
    const requiredByMain = meta.outputs[MAIN]!.imports.filter((imported) => imported.path.startsWith('./side/')).map((imported) => imported.path);
    // A side file only another side file loads (mcp-http, by mcp's handler alone) is required from beside it.
    const requiredBySides = sideFiles().flatMap((side) => meta.outputs[side]!.imports.map((imported) => imported.path.replace(/^\.\//, './side/')));
    for (const [name, source] of Object.entries(SIDE_FILES)) {
      const entry = meta.outputs[`dist/side/${name}.cjs`]?.entryPoint ?? '';
      // A dependency's side file is built from a stand-in that requires the installed package (build/index.mjs).
      const built = source.startsWith('src/') ? entry : source in MANIFEST.dependencies ? entry.replace(/^installed-dependency:/, '') : packages([entry])[0];
      expect(built, name).toBe(source);
      expect(inputsOf(MAIN), `${source} is imported statically by the main file, so it is folded into it`).not.toContain(entry);
      expect([...requiredByMain, ...requiredBySides], name).toContain(`./side/${name}.cjs`);
    }
  });

  it('no module of the main file is reached through import() alone: a module meant to load lazily is named in build/side-files.json', () => {
    const inputs = inputsOf(MAIN);
    const kinds = new Map<string, string[]>();
    for (const input of inputs) for (const { path: imported, kind } of meta.inputs[input]?.imports ?? []) kinds.set(imported, [...(kinds.get(imported) ?? []), kind]);
    const lazyOnly = inputs.filter((input) => kinds.get(input)?.every((kind) => kind === 'dynamic-import'));
    expect(lazyOnly).toEqual([]);
  });

  it("side files take gymctl's own modules from the main file, never a copy: one class of each error, so instanceof holds", () => {
    const registry = readFileSync(path.join(ROOT, MAIN), 'utf8');
    expect(sideFiles().length).toBeGreaterThanOrEqual(10);
    for (const shared of ['src/failures.ts', 'src/api/errors.ts']) {
      expect(holders(new RegExp(`^${shared.replace(/[./]/g, '\\$&')}$`))).toEqual([MAIN]);
      expect(registry).toContain(JSON.stringify(shared));
    }
    for (const side of sideFiles()) {
      for (const input of inputsOf(side).filter((i) => i.startsWith('main-file:'))) {
        const source = input.slice('main-file:'.length);
        expect(inputsOf(MAIN), `${side} takes ${source}`).toContain(source);
        expect(registry, source).toContain(JSON.stringify(source));
      }
    }
    expect(inputsOf('dist/side/auth.cjs')).toContain('main-file:src/failures.ts');
    // Lent by namespace, not require(): a required module esbuild wraps to run on demand (with all it imports), which
    // Node 20 parses twice at every start.
    expect(registry).toMatch(/"src\/api\/errors\.ts":\s*\(\)\s*=>\s*\w/);
    expect(registry).not.toMatch(/"src\/[^"]+\.ts":\s*\(\)\s*=>\s*\(/);
  });
});

describe('the design card’s packages, each loaded only where it works', () => {
  for (const [name, pattern, sides] of [
    ['cli-table3 (terminal tables)', /node_modules\/cli-table3\//, ['dist/side/output-table.cjs']],
    // string-width measures cells for the tables, and lines for the academy picker (@inquirer/search).
    ['string-width (measuring for a terminal)', /node_modules\/string-width\//, ['dist/side/output-table.cjs', 'dist/side/terminal-picker.cjs']],
    ['chalk (colour)', /node_modules\/chalk\//, ['dist/side/output-table.cjs']],
    ['conf (writing the config file)', /node_modules\/(conf|atomically)\//, ['dist/side/config-conf.cjs']],
    // ajv checks the config file for conf, and comes with the MCP SDK's server (which builds a validator, used for elicitation only).
    ['ajv (JSON Schema)', /node_modules\/ajv\//, ['dist/side/config-conf.cjs', 'dist/side/mcp.cjs']],
    // Its Streamable HTTP transport (with @hono/node-server) only for `gymctl mcp --http`, in a side file of its own.
    ['@modelcontextprotocol/sdk (gymctl mcp)', /node_modules\/@modelcontextprotocol\/sdk\//, ['dist/side/mcp.cjs', 'dist/side/mcp-http.cjs']],
    ['@hono/node-server (gymctl mcp --http)', /node_modules\/@hono\/node-server\//, ['dist/side/mcp-http.cjs']],
  ] as const) {
    it(`${name}: in the build, never in the main file, only in its side file`, () => {
      expect(holders(pattern).sort()).toEqual([...sides].sort());
      expect(packages(inputsOf(MAIN))).not.toContain(name.split(' ')[0]);
    });
  }

  it("conf's atomically takes gymctl's when-exit, which hooks no signal: the package's is not in the build", () => {
    expect(holders(/node_modules\/when-exit\//)).toHaveLength(0);
    expect(holders(/src\/config\/when-exit\.ts$/)).toEqual(['dist/side/config-conf.cjs']);
  });
});

describe("the build's interventions in third-party code (build/common.mjs; build.test.ts runs each)", () => {
  it('conf is built without env-paths, which reads os.homedir() as it loads (and fails where Node has no home to give)', () => {
    const conf = readFileSync(path.join(ROOT, 'dist', 'side', 'config-conf.cjs'), 'utf8');
    expect(conf).toContain('conf asked env-paths for its folder: gymctl gives conf its cwd');
    expect(conf).not.toContain('homedir(');
  });
});

describe('what the library holds', () => {
  const library = readMeta('meta-index.json');
  const sources = Object.keys(library.inputs).filter((input) => input.startsWith('src/'));

  it('dist/index.js is built from the API client, the operations it is made from and the JSON tools only (and the version, for its User-Agent)', () => {
    expect(sources).toContain('src/api/client.ts');
    expect(sources.filter((input) => !['src/index.ts', 'src/api/once.ts', 'src/version.ts'].includes(input) && !/^src\/(api|json|operations)\//.test(input))).toEqual([]);
  });

  it('carries none of the CLI: no exit codes, usage errors or interrupts', () => {
    expect(sources).not.toContain('src/failures.ts');
    const text = readFileSync(path.join(ROOT, 'dist', 'index.js'), 'utf8');
    for (const cli of ['EXIT_CODES', 'exitCodeOf', 'AlreadyReported', 'Interrupted', 'UsageError']) expect(text, cli).not.toContain(cli);
    expect(text).toContain('GymApiError');
  });

  it('never loads the keyring: no keyring code, no import of @napi-rs/keyring (an optional dependency), no agent to run', () => {
    const inputs = Object.keys(library.inputs);
    expect(inputs.filter((input) => /keyring/i.test(input))).toEqual([]);
    const imports = Object.values(library.outputs).flatMap((output) => output.imports.map((imported) => imported.path));
    expect(imports.filter((imported) => imported.includes('keyring'))).toEqual([]);
    expect(readFileSync(path.join(ROOT, 'dist', 'index.js'), 'utf8')).not.toMatch(/keyring/i);
  });

  it('dist/types holds index.d.ts and the declarations it reaches alone: no module of the CLI (the package test asks the compiler)', () => {
    const types = path.join(ROOT, 'dist', 'types');
    const files = readdirSync(types, { recursive: true })
      .map((file) => String(file).split(path.sep).join('/'))
      .filter((file) => file.endsWith('.d.ts'));
    expect(files).toContain('index.d.ts');
    expect(files.length).toBeLessThanOrEqual(25);
    const reached = new Set<string>();
    const pending = ['index.d.ts'];
    for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
      if (reached.has(file)) continue;
      reached.add(file);
      for (const [, specifier] of readFileSync(path.join(types, file), 'utf8').matchAll(/\b(?:from|import)\s*\(?\s*["'](\.\.?\/[^"']+)["']/g))
        pending.push(path.posix.join(path.posix.dirname(file), specifier!.replace(/\.js$/, '.d.ts')));
    }
    expect(files.sort()).toEqual([...reached].sort());
    expect(files.filter((file) => /^(commands|mcp|sandbox|terminal|startup|keyring|config|cache|run|files|sea)\//.test(file))).toEqual([]);
    // What src/ marks @internal (the client's `ask`, the CLI's) is not the library's: tsc's stripInternal leaves it out.
    expect(readFileSync(path.join(types, 'api', 'client.d.ts'), 'utf8')).not.toMatch(/@internal|\bask\b/);
  });

  it('the JSON tools import nothing else of gymctl', () => {
    const json = Object.entries(meta.inputs).filter(([input]) => input.startsWith('src/json/'));
    expect(json.length).toBeGreaterThan(0);
    for (const [, { imports }] of json) for (const imported of imports) expect(imported.path).toMatch(/^src\/json\//);
  });
});
