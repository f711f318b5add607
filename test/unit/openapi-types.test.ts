/**
 * gymctl's exported types against types generated from its OpenAPI document,
 * in a project with `exactOptionalPropertyTypes` (and `strict`): they assign
 * both ways, but for ids, which gymctl types `number | bigint` (a 64-bit id
 * beyond 2^53 comes back as a bigint, every digit kept) and a generator types
 * `number`. The error body assigns both ways as it is: both say what the spec
 * says. The types are generated from dist/openapi.json here, by the rules
 * openapi-typescript 7 follows (openapi-typescript itself drives the
 * TypeScript 5 compiler API, which the TypeScript 7 compiler here does not
 * have), and compiled with the project's tsc.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

type Json = Record<string, unknown>;

const NAMES = ['ApiKey', 'Academy', 'FamilyMember', 'ErrorBody'] as const;

/**
 * A schema as openapi-typescript 7 types it: `integer` is `number`, a
 * property not required is `?:` (no `| undefined`), a `null` type is
 * `| null`, and `additionalProperties: {}` adds `& { [key: string]: unknown }`.
 */
function typeOf(schema: Json): string {
  if (typeof schema.$ref === 'string') return `components['schemas'][${JSON.stringify(schema.$ref.split('/').at(-1))}]`;
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as Json[]).map((branch) => `(${typeOf(branch)})`).join(' | ');
  const types = [schema.type].flat() as string[];
  if (types.length !== 1) return types.map((type) => typeOf({ ...schema, type })).join(' | ');
  switch (types[0]) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return `(${typeOf(schema.items as Json)})[]`;
    case 'object': {
      const required = new Set((schema.required as string[] | undefined) ?? []);
      const properties = Object.entries((schema.properties as Record<string, Json> | undefined) ?? {}).map(
        ([name, property]) => `${JSON.stringify(name)}${required.has(name) ? '' : '?'}: ${typeOf(property)};`,
      );
      const open = schema.additionalProperties !== undefined && schema.additionalProperties !== false;
      return `{ ${properties.join(' ')} }${open ? ' & { [key: string]: unknown }' : ''}`;
    }
    default:
      throw new Error(`no TypeScript type for ${JSON.stringify(schema)}`);
  }
}

const document = JSON.parse(readFileSync(path.join(ROOT, 'dist', 'openapi.json'), 'utf8')) as { components: { schemas: Record<string, Json> } };
const generated = `export interface components {\n  schemas: {\n${Object.entries(document.components.schemas)
  .map(([name, schema]) => `    ${name}: ${typeOf(schema)};`)
  .join('\n')}\n  };\n}\n`;

const gymctlTypes = JSON.stringify(path.join(ROOT, 'dist', 'types', 'index.js'));
const header = `import type { ${NAMES.join(', ')} } from ${gymctlTypes};
import type { components } from './generated.js';
type Generated = components['schemas'];
`;
const each = (line: (name: string) => string, names: readonly string[] = NAMES) => names.map(line).join('\n');
/** The resources, which have ids; the error body has none. */
const RESOURCES = NAMES.filter((name) => name !== 'ErrorBody');

const FILES: Record<string, string> = {
  'generated.ts': generated,
  // What a generated client hands over is a gymctl value as it is.
  'from-generated.ts': `${header}${each((name) => `export const from${name} = (value: Generated['${name}']): ${name} => value;`)}\n`,
  // A gymctl value, its ids numbers by default, is a generated value as it is.
  'to-generated.ts': `${header}${each((name) => `export const to${name} = (value: ${name}): Generated['${name}'] => value;`, RESOURCES)}\n`,
  // The exported error body says what the spec says: message and correlationId, both strings.
  'error-body.ts': `${header}export const toErrorBody = (value: ErrorBody): Generated['ErrorBody'] => value;\n`,
  // The client's options take a value that may be undefined, meaning the default.
  'options.ts': `import { createClient } from ${gymctlTypes};
declare const timeout: number | undefined;
declare const connections: number | undefined;
export const client = createClient({ baseUrl: 'https://api.example.com', apiKey: 'k', timeoutMs: timeout, maxConnections: connections, retries: undefined });\n`,
};

let project: string;
let diagnostics: Array<{ file: string; text: string }>;

beforeAll(() => {
  project = mkdtempSync(path.join(tmpdir(), 'gymctl-openapi-types-'));
  for (const [file, text] of Object.entries(FILES)) writeFileSync(path.join(project, file), text);
  writeFileSync(
    path.join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        exactOptionalPropertyTypes: true,
        noEmit: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        typeRoots: [path.join(ROOT, 'node_modules', '@types')],
        types: ['node'],
      },
      files: Object.keys(FILES),
    }),
  );
  const tsc = spawnSync(path.join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', project, '--pretty', 'false'], { cwd: project, encoding: 'utf8' });
  // One diagnostic a line that starts with its file; the lines under it explain it.
  diagnostics = [];
  for (const line of tsc.stdout.split('\n')) {
    const start = /^([\w.-]+\.ts)\(\d+,\d+\): error /.exec(line);
    if (start) diagnostics.push({ file: start[1]!, text: line });
    else if (line.trim() && diagnostics.length > 0) diagnostics.at(-1)!.text += `\n${line}`;
    else if (line.trim()) diagnostics.push({ file: '', text: line });
  }
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

describe('the exported types and types generated from the OpenAPI document, under exactOptionalPropertyTypes', () => {
  it('the generated types have every component, optional fields as `?: T | null`', () => {
    for (const name of NAMES) expect(generated).toContain(`    ${name}: {`);
    expect(generated).toContain('"email"?: string | null;');
  });

  const errorsIn = (...files: string[]) => diagnostics.filter(({ file }) => files.includes(file));

  it('a generated value assigns to the gymctl type: ApiKey, Academy, FamilyMember, ErrorBody', () => {
    expect(errorsIn('generated.ts', 'from-generated.ts', '')).toEqual([]);
  });

  it('a gymctl resource assigns to the generated type as it is: its ids are numbers', () => {
    expect(errorsIn('to-generated.ts')).toEqual([]);
  });

  it('a gymctl error body does as it is: both require message and correlationId, strings, as the spec says', () => {
    expect(errorsIn('error-body.ts')).toEqual([]);
    expect(generated).toContain('ErrorBody: { "message": string; "correlationId": string; }');
  });

  it("the client's options take undefined for a default, as a project with exactOptionalPropertyTypes may pass", () => {
    expect(errorsIn('options.ts')).toEqual([]);
  });
});
