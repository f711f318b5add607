/**
 * Every declared operation across every surface: a surface that misses one
 * fails here. The built files are checked too: the help written at build
 * time, the man page and the OpenAPI document. The ids each is walked with
 * are the ones the sandbox's demo data answers (no list of them here).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandNames } from '../../src/operations/declare.js';
import { OPERATIONS } from '../../src/operations/index.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { ROOT } from '../helpers/cli.js';
import { sampleIds, walkSurfaces } from '../helpers/surfaces.js';

const built = (file: string) => readFileSync(path.join(ROOT, 'dist', file), 'utf8');

describe.each(OPERATIONS.map((operation) => [operation.name, operation] as const))('%s on every surface', (name, operation) => {
  it('in-process: client, command, formats, batches, help, man page, Tab, schema, OpenAPI, sandbox, MCP tools', async () => {
    const sandbox = await startSandbox();
    const ids = await sampleIds(operation, sandbox.url).finally(() => sandbox.close());
    expect(ids, `ids of ${name} that the demo data answers (src/sandbox/demo-data.ts)`).toBeDefined();
    await walkSurfaces(operation, ids!);
  });

  it('in the build: help.txt, the man page and openapi.json', () => {
    for (const command of commandNames(operation)) {
      expect(built('help.txt')).toMatch(new RegExp(`^  ${command} `, 'm'));
      expect(built('gymctl.1').replaceAll('\\-', '-')).toContain(`gymctl ${command}`);
    }
    expect(Object.keys(JSON.parse(built('openapi.json')).paths)).toContain(operation.path);
  });
});
