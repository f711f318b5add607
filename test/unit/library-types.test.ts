/**
 * What the compiler says of a library user's mistakes: every type its messages name is one the package exports, so a
 * user can import it (`ClientOptions`, never the transport's own name for it).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const LIBRARY = JSON.stringify(path.join(ROOT, 'src', 'index.js'));

/** Compiles each source under --strict against the library's sources: the compiler's messages, by file. */
function compile(sources: Record<string, string>): { output: string; status: number | null } {
  const folder = mkdtempSync(path.join(tmpdir(), 'gymctl-library-types-'));
  try {
    for (const [name, source] of Object.entries(sources)) writeFileSync(path.join(folder, `${name}.ts`), `${source}\n`);
    writeFileSync(path.join(folder, 'package.json'), '{"type":"module"}\n');
    const config = {
      extends: path.join(ROOT, 'tsconfig.json'),
      compilerOptions: { rootDir: path.parse(folder).root, typeRoots: [path.join(ROOT, 'node_modules', '@types')], noErrorTruncation: true },
      include: [],
      files: Object.keys(sources).map((name) => `${name}.ts`),
    };
    writeFileSync(path.join(folder, 'tsconfig.json'), JSON.stringify(config));
    const tsc = spawnSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', folder, '--pretty', 'false'], { encoding: 'utf8' });
    return { output: `${tsc.stdout}${tsc.stderr}`, status: tsc.status };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

const prelude = `import { createClient, GymApiError, operations } from ${LIBRARY};\nconst client = createClient({ baseUrl: 'https://api.example.com', apiKey: 'k' });\n`;

/** Mistakes a user makes, each in a file of its own; each must fail to compile. */
const MISTAKES: Record<string, string> = {
  baseURL: `import { createClient } from ${LIBRARY};\ncreateClient({ baseURL: 'https://api.example.com', apiKey: 'k' });`,
  maxRetries: `import { createClient } from ${LIBRARY};\ncreateClient({ baseUrl: 'https://api.example.com', apiKey: 'k', maxRetries: 2 });`,
  callOption: `${prelude}client.getAcademy(1, { retry: 1 });`,
  method: `${prelude}client.getAcadmy(1);`,
  operation: `${prelude}operations.academyy(1);`,
  data: `${prelude}export const name: string = await client.getAcademy(1);`,
  idType: `${prelude}client.getAcademy('1');`,
  response: `${prelude}export const response: string = await client.getMe().withResponse();`,
  field: `${prelude}export const n = (await client.getAcademy(1)).nmae;`,
  error: `${prelude}export const kind = (new Error() as GymApiError).knd;`,
  headers: `${prelude}client.getMe({ headers: { 'X-Trace': 1 } });`,
};

/** Types of the language and the web platform, which every user has. */
const GLOBALS = new Set('Promise PromiseLike Response Headers AbortSignal URL Record Readonly ReadonlyArray Array Pick Partial Uint8Array Error'.split(' '));

describe("the compiler's messages about a user's mistakes", () => {
  it('name only types the package exports, and an option mistake suggests the option and names ClientOptions', () => {
    const { output, status } = compile(MISTAKES);
    expect(status).not.toBe(0);
    const errors = output.split('\n').filter((line) => / error TS\d+: /.test(line));
    const about = (name: string) => errors.find((line) => line.startsWith(`${name}.ts(`) || line.includes(`/${name}.ts(`));
    for (const name of Object.keys(MISTAKES)) expect(about(name), `${name}: a mistake that compiles\n${output}`).toBeDefined();
    expect(about('baseURL')).toMatch(/'baseURL' does not exist in type 'ClientOptions.*Did you mean to write 'baseUrl'\?/);
    expect(about('maxRetries')).toMatch(/'maxRetries' does not exist in type 'ClientOptions/);
    // Every capitalised name inside a quoted type in the messages.
    const quoted = errors.flatMap((line) => [...line.replace(/^.*? error TS\d+: /, '').matchAll(/'([^']*)'/g)].map((match) => match[1]!));
    const named = new Set(quoted.flatMap((type) => [...type.matchAll(/(?<![\w.$])([A-Z]\w*)/g)].map((match) => match[1]!)));
    const own = [...named].filter((name) => !GLOBALS.has(name));
    expect(own).toContain('ClientOptions');
    expect(own).not.toContain('TransportOptions');
    // Each can be imported from the package.
    const imports = compile({ imports: `import type { ${own.join(', ')} } from ${LIBRARY};\nexport type { ${own.join(', ')} };` });
    expect(imports.output, own.join(', ')).toBe('');
  }, 120_000);
});
