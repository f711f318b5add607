/**
 * Every declared operation across every surface: a surface that misses one
 * fails here. The built files are checked too: the help written at build
 * time, the man page, the OpenAPI document, and the code cache's command
 * names in dist/boot.cjs.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandNames } from '../../src/operations/declare.js';
import { OPERATIONS } from '../../src/operations/index.js';
import { ROOT } from '../helpers/cli.js';
import { walkSurfaces } from '../helpers/surfaces.js';

/** Ids the sandbox's demo data has, by operation. */
const SAMPLE_IDS: Record<string, number[]> = { whoami: [], academy: [1, 2], family: [501, 530] };

const built = (file: string) => readFileSync(path.join(ROOT, 'dist', file), 'utf8');

describe.each(OPERATIONS.map((operation) => [operation.name, operation] as const))('%s on every surface', (name, operation) => {
  it('in-process: client, command, formats, batches, help, man page, Tab, schema, OpenAPI, sandbox, code cache, MCP tools', async () => {
    expect(SAMPLE_IDS[name], 'a test id for it in SAMPLE_IDS').toBeDefined();
    await walkSurfaces(operation, SAMPLE_IDS[name]!);
  });

  it('in the build: help.txt, the man page and openapi.json', () => {
    for (const command of commandNames(operation)) {
      expect(built('help.txt')).toMatch(new RegExp(`^  ${command} `, 'm'));
      expect(built('gymctl.1').replaceAll('\\-', '-')).toContain(`gymctl ${command}`);
    }
    expect(Object.keys(JSON.parse(built('openapi.json')).paths)).toContain(operation.path);
  });
});
