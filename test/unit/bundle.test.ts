/**
 * The guard on start-up cost, deterministic rather than timed: what each
 * path through the built CLI loads, read from esbuild's metafile (which
 * source files went into which chunk, and which chunk imports which).
 * `npm test` builds first; the e2e tests run the same build.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

interface Metafile {
  inputs: Record<string, { imports: Array<{ path: string; kind: string; external?: boolean }> }>;
  outputs: Record<string, { imports: Array<{ path: string; kind: string }>; inputs: Record<string, unknown>; entryPoint?: string }>;
}

const readMeta = (name: string) => JSON.parse(readFileSync(path.join(ROOT, 'dist', name), 'utf8')) as Metafile;
const meta = readMeta('meta.json');

/** Every source file a chunk loads before it runs: its own and its static imports', transitively. */
function loadedBy(chunk: string): string[] {
  const seen = new Set<string>();
  const stack = [chunk];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    for (const imported of meta.outputs[next]!.imports) {
      if (imported.kind === 'import-statement' && meta.outputs[imported.path]) stack.push(imported.path);
    }
  }
  return [...seen].flatMap((output) => Object.keys(meta.outputs[output]!.inputs));
}

const chunkOf = (entry: string) => Object.entries(meta.outputs).find(([, output]) => output.entryPoint === entry)?.[0];
const packages = (inputs: string[]) => [...new Set(inputs.filter((i) => i.includes('node_modules/')).map((i) => i.split('node_modules/').pop()!.split('/')[0]!))];

describe('what the built CLI loads', () => {
  it('--help: the entry point, nothing else (--version is answered by bin/gymctl.cjs before it)', () => {
    const inputs = loadedBy('dist/cli.js');
    expect(inputs.sort()).toEqual(['src/cli.ts']);
  });

  it('whoami --json and academy: the parser and zod, but no table, colour, config-writing, undici or sandbox code', () => {
    const main = chunkOf('src/main.ts');
    expect(main).toBeDefined();
    const inputs = loadedBy(main!);
    expect(packages(inputs).sort()).toEqual(['commander', 'zod']);
    for (const lazy of [
      'src/output/table.ts',
      'src/sandbox/server.ts',
      'src/sandbox/demo-data.ts',
      'src/cache/store.ts',
      'src/cache/duration.ts',
      'src/keyring/client.ts',
      'src/output/jq.ts',
      // Every other command's handler: its definition is with the parser, its handler loads when it runs.
      ...['auth', 'config', 'api', 'cache', 'schema', 'completion', 'complete', 'sandbox'].map((name) => `src/commands/${name}/run.ts`),
    ]) {
      expect(inputs).not.toContain(lazy);
    }
    // The read commands themselves are there: no extra round trip to load them.
    for (const command of ['src/commands/whoami.ts', 'src/commands/academy.ts', 'src/commands/sandbox.ts', 'src/api/transport/loop.ts']) expect(inputs).toContain(command);
  });

  it('the heavy dependencies each sit in a chunk of their own, loaded only on their path', () => {
    const lazyChunks = Object.entries(meta.outputs).filter(([, output]) => Object.keys(output.inputs).some((input) => /node_modules\/(undici|jq-wasm)\//.test(input)));
    expect(lazyChunks.length).toBeGreaterThanOrEqual(2);
    const eager = new Set([...loadedBy('dist/cli.js'), ...loadedBy(chunkOf('src/main.ts')!)]);
    for (const [, output] of lazyChunks) for (const input of Object.keys(output.inputs)) expect(eager.has(input)).toBe(false);
  });

  it('jq (for --jq) is loaded by nothing but --jq: its chunk is imported dynamically, and only by src/output/jq.ts; its worker loads dist/jq-wasm.cjs', () => {
    const jqChunks = Object.entries(meta.outputs).filter(([, output]) => Object.keys(output.inputs).some((input) => input.includes('node_modules/jq-wasm/')));
    expect(jqChunks).toHaveLength(1);
    const [jqChunk] = jqChunks[0]!;
    const importers = Object.entries(meta.outputs).filter(([, output]) => output.imports.some((imported) => imported.path === jqChunk));
    expect(importers.every(([, output]) => output.imports.find((imported) => imported.path === jqChunk)!.kind === 'dynamic-import')).toBe(true);
    expect(importers.flatMap(([, output]) => Object.keys(output.inputs))).toEqual(['src/output/jq.ts']);
    const eager = new Set([...loadedBy('dist/cli.js'), ...loadedBy(chunkOf('src/main.ts')!)]);
    expect(eager.has('src/output/jq.ts')).toBe(false);
    const workerJq = readFileSync(path.join(ROOT, 'dist', 'jq-wasm.cjs'), 'utf8');
    expect(workerJq).toContain('loadJq');
    // The worker's jq hands its output over as it comes (the build's hook on jq-wasm's stdout).
    expect(workerJq).toContain('__gymctlJqOutput');
  });

  it('the native keyring module is in no chunk: only the keyring agent, a process of its own, loads it', () => {
    const imports = Object.values(meta.outputs).flatMap((output) => output.imports.map((imported) => imported.path));
    expect(imports.filter((imported) => imported.includes('keyring'))).toEqual([]);
    const inputs = Object.values(meta.outputs).flatMap((output) => Object.keys(output.inputs));
    expect(inputs).toContain('src/keyring/client.ts');
    expect(inputs).not.toContain('src/keyring/agent.ts');
    const eager = new Set([...loadedBy('dist/cli.js'), ...loadedBy(chunkOf('src/main.ts')!)]);
    expect(eager.has('src/keyring/client.ts')).toBe(false);
    expect(readFileSync(path.join(ROOT, 'dist', 'keyring-agent.cjs'), 'utf8')).toContain('@napi-rs/keyring');
  });
});

describe('the design card’s packages, each loaded only where it works', () => {
  const eager = () => new Set([...loadedBy('dist/cli.js'), ...loadedBy(chunkOf('src/main.ts')!)]);
  /** The chunks holding a package, and the source files of the chunks that import them. */
  const holders = (pattern: RegExp) => {
    const chunks = Object.entries(meta.outputs).filter(([, output]) => Object.keys(output.inputs).some((input) => pattern.test(input)));
    const importers = Object.entries(meta.outputs).filter(([, output]) => output.imports.some((imported) => chunks.some(([chunk]) => chunk === imported.path)));
    return { chunks, importers };
  };

  for (const [name, pattern, importedBy] of [
    [
      'cli-table3 and string-width (terminal tables)',
      /node_modules\/(cli-table3|string-width)\//,
      ['src/commands/auth/run.ts', 'src/commands/sandbox/run.ts', 'src/output/emit.ts', 'src/output/human.ts'],
    ],
    ['chalk (colour)', /node_modules\/chalk\//, ['src/commands/auth/run.ts', 'src/commands/sandbox/run.ts', 'src/output/emit.ts', 'src/output/human.ts']],
    ['conf (writing the config file)', /node_modules\/(conf|atomically|ajv)\//, ['src/config/store.ts']],
  ] as const) {
    it(`${name}: in the build, never on the start-up path, and imported only dynamically`, () => {
      const { chunks, importers } = holders(pattern);
      expect(chunks.length).toBeGreaterThan(0);
      const start = eager();
      for (const [, output] of chunks) for (const input of Object.keys(output.inputs)) expect(start.has(input), input).toBe(false);
      expect(importers.length).toBeGreaterThan(0);
      for (const [, output] of importers) {
        for (const imported of output.imports.filter((i) => chunks.some(([chunk]) => chunk === i.path))) expect(imported.kind).toBe('dynamic-import');
        // The chunk importing it holds only sources that load it for their own work.
        for (const input of Object.keys(output.inputs).filter((i) => i.startsWith('src/')))
          expect(start.has(input) || importedBy.some((source) => source === input), input).toBe(true);
      }
      expect(importers.flatMap(([, output]) => Object.keys(output.inputs)).filter((input) => (importedBy as readonly string[]).includes(input)).length).toBeGreaterThan(0);
    });
  }

  it('chalk reads neither process.argv nor the environment: its colour probe is not in the build', () => {
    const chalkChunk = holders(/node_modules\/chalk\//)
      .chunks.map(([chunk]) => readFileSync(path.join(ROOT, chunk), 'utf8'))
      .join('');
    expect(chalkChunk).toContain('`\\x1B[${'); // ansi-styles: chalk is there
    expect(Object.keys(holders(/node_modules\/chalk\/source\/vendor\/supports-color\//).chunks)).toHaveLength(0);
    for (const probe of ['FORCE_COLOR', 'COLORTERM', 'TERM_PROGRAM', 'process.argv', 'isatty']) expect(chalkChunk).not.toContain(probe);
  });
});

describe('what the library holds', () => {
  const library = readMeta('meta-index.json');
  const sources = Object.keys(library.inputs).filter((input) => input.startsWith('src/'));

  it('dist/index.js is built from the API client and the JSON tools only', () => {
    expect(sources).toContain('src/api/client.ts');
    expect(sources.filter((input) => input !== 'src/index.ts' && !/^src\/(api|json)\//.test(input))).toEqual([]);
  });

  it('carries none of the CLI: no exit codes, usage errors or interrupts', () => {
    expect(sources).not.toContain('src/failures.ts');
    const text = readFileSync(path.join(ROOT, 'dist', 'index.js'), 'utf8');
    for (const cli of ['EXIT_CODES', 'exitCodeOf', 'AlreadyReported', 'Interrupted', 'UsageError']) expect(text, cli).not.toContain(cli);
    expect(text).toContain('GymApiError');
  });

  it('the JSON tools import nothing else of gymctl', () => {
    const json = Object.entries(meta.inputs).filter(([input]) => input.startsWith('src/json/'));
    expect(json.length).toBeGreaterThan(0);
    for (const [, { imports }] of json) for (const imported of imports) expect(imported.path).toMatch(/^src\/json\//);
  });
});
