/**
 * What a declaration needs beside itself, which no surface derives from it:
 * the library's exports (its record's schema and named type, the client's
 * method returning that type), the sandbox's demo data (which the sandbox
 * answers the operation's path with), and the docs that name it (README,
 * docs/commands.md, docs/mcp.md, docs/library.md). An operation declared
 * without one of these fails here; every surface derived from the
 * declaration is walked by surfaces.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as library from '../../src/index.js';
import { toolsOf } from '../../src/mcp/tools.js';
import { commandNames, type OperationDeclaration } from '../../src/operations/declare.js';
import { OPERATIONS } from '../../src/operations/index.js';
import { DEMO_DATA } from '../../src/sandbox/demo-data.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { widgets } from '../fixtures/widgets.js';
import { ROOT } from '../helpers/cli.js';
import { sampleIds } from '../helpers/surfaces.js';

const named = OPERATIONS.map((declaration) => [declaration.name, declaration] as const);

/** The record's schema as the library exports it: `academySchema` for the component `Academy`. */
const schemaExport = (declaration: OperationDeclaration) => `${declaration.openapi.component.charAt(0).toLowerCase()}${declaration.openapi.component.slice(1)}Schema`;

/** The record's type, as the client's method returns it: `Academy`, `FamilyMember[]`. */
const returned = (declaration: OperationDeclaration) => `${declaration.openapi.component}${declaration.list ? '[]' : ''}`;

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** What each doc must name of an operation, as a pattern each: a command is `gymctl <command>`, a tool is in backticks. */
const DOCS: Record<string, (declaration: OperationDeclaration) => Array<[string, RegExp]>> = {
  'README.md': (declaration) => commandNames(declaration).map((command) => [`gymctl ${command}`, new RegExp(`gymctl ${escaped(command)}(?![\\w-])`)]),
  'docs/commands.md': (declaration) => commandNames(declaration).map((command) => [`gymctl ${command}`, new RegExp(`gymctl ${escaped(command)}(?![\\w-])`)]),
  'docs/mcp.md': (declaration) => toolsOf([declaration]).map(({ name }) => [`\`${name}\``, new RegExp(`\`${escaped(name)}\``)]),
  'docs/library.md': (declaration) => [
    [`${declaration.client.method}(`, new RegExp(`\\b${escaped(declaration.client.method)}\\(`)],
    [declaration.openapi.component, new RegExp(`\\b${escaped(declaration.openapi.component)}\\b`)],
  ],
};

describe.each(named)('%s, beside its declaration', (name, declaration) => {
  it('the library exports its record schema, as <component>Schema', () => {
    const exported = (library as Record<string, unknown>)[schemaExport(declaration)];
    expect(exported, `${schemaExport(declaration)} in src/api/public.ts`).toBeDefined();
    // Built once (`once`), so the export is the very schema the client checks answers with.
    expect(exported).toBe(declaration.schema());
    expect((library.operations as Record<string, unknown>)[declaration.client.operation], `operations.${declaration.client.operation}`).toBeTypeOf('function');
  });

  it('the sandbox has demo data under each list it reads, and answers its path with data that passes its schema', async () => {
    for (const collection of Object.keys(declaration.sandbox.collections ?? {})) {
      expect((DEMO_DATA as Record<string, unknown[] | undefined>)[collection]?.length, `DEMO_DATA.${collection} in src/sandbox/demo-data.ts`).toBeGreaterThan(0);
    }
    const sandbox = await startSandbox();
    try {
      const ids = await sampleIds(declaration, sandbox.url);
      // One with a path parameter: at least two ids answered, for its batches.
      expect(ids, `${declaration.method} ${declaration.path} with the demo key and data`).toHaveLength(declaration.param ? 2 : 0);
    } finally {
      await sandbox.close();
    }
  });

  it.each(Object.keys(DOCS))('%s names it', (doc) => {
    const text = readFileSync(path.join(ROOT, doc), 'utf8');
    const missing = DOCS[doc]!(declaration)
      .filter(([, pattern]) => !pattern.test(text))
      .map(([shown]) => shown);
    expect(missing, `${name} in ${doc}`).toEqual([]);
  });
});

describe('the library, to the compiler', () => {
  it("exports each operation's record type by its component's name, and the client's method returns it", () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'gymctl-declarations-'));
    try {
      const types = [...new Set(OPERATIONS.map((declaration) => declaration.openapi.component))];
      const source = [
        `import type { ApiPromise, GymClient, ${types.join(', ')} } from ${JSON.stringify(path.join(ROOT, 'src', 'index.js'))};`,
        'type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;',
        ...OPERATIONS.map(
          (declaration) => `export const ${declaration.client.method}: Equal<ReturnType<GymClient['${declaration.client.method}']>, ApiPromise<${returned(declaration)}>> = true;`,
        ),
        // The check can fail: a method that returns another type is not equal.
        "// @ts-expect-error: not the type it returns\nexport const other: Equal<ReturnType<GymClient['getMe']>, ApiPromise<unknown>> = true;",
      ].join('\n');
      writeFileSync(path.join(folder, 'check.ts'), `${source}\n`);
      writeFileSync(path.join(folder, 'package.json'), '{"type":"module"}\n');
      const config = {
        extends: path.join(ROOT, 'tsconfig.json'),
        compilerOptions: { rootDir: path.parse(folder).root, typeRoots: [path.join(ROOT, 'node_modules', '@types')] },
        include: [],
        files: ['check.ts'],
      };
      writeFileSync(path.join(folder, 'tsconfig.json'), JSON.stringify(config));
      const tsc = spawnSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', folder], { encoding: 'utf8' });
      expect(`${tsc.stdout}${tsc.stderr}`, source).toBe('');
      expect(tsc.status).toBe(0);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('the worked example of a fourth operation (test/fixtures/widgets.ts)', () => {
  it('shares no name with a declared operation: its command, tools, method, path, component and lists are its own', () => {
    const namesOf = (declaration: OperationDeclaration) => [
      declaration.name,
      declaration.path,
      declaration.client.method,
      declaration.client.operation,
      declaration.openapi.component,
      ...commandNames(declaration),
      ...toolsOf([declaration]).map((tool) => tool.name),
      ...Object.keys(declaration.sandbox.collections ?? {}),
      ...(declaration.listAnswer ? [declaration.listAnswer.of] : []),
    ];
    const taken = new Set(OPERATIONS.flatMap(namesOf));
    expect(namesOf(widgets).filter((name) => taken.has(name))).toEqual([]);
    expect(OPERATIONS.map((declaration) => declaration.name)).not.toContain(widgets.name);
  });
});
