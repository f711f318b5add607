/**
 * Every surface an operation's declaration reaches, walked in-process: the
 * client, the command in every format with batches, stdin and
 * --ignore-not-found, help and the man page, Tab, the --json FIELDS hint,
 * the flag table, `gymctl schema`, the OpenAPI document, the sandbox's
 * route and the MCP tools (through the SDK's own client); `gymctl schema`
 * and the tools' output schemas say what every field means. Used for the
 * declared operations and for a fourth one declared by a test alone.
 */
import { expect } from 'vitest';
import { componentOf, openApiDocument } from '../../src/api/openapi.js';
import { createClient } from '../../src/api/client.js';
import { manualMarkdown } from '../../src/commands/manual.js';
import { createFactory } from '../../src/factory.js';
import { appliesTo } from '../../src/flags.js';
import { commandNames, type OperationDeclaration } from '../../src/operations/declare.js';
import { OPERATIONS } from '../../src/operations/index.js';
import { columnNames } from '../../src/output/columns.js';
import { viewsOf } from '../../src/output/views.js';
import { buildProgram, TOP_EXAMPLES } from '../../src/program.js';
import { DEMO_KEY } from '../../src/sandbox/demo-data.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { createIO } from '../../src/terminal/io.js';
import { fakeStreams, gymctl } from './harness.js';
import { batchName, toolName } from '../../src/mcp/tools.js';
import { inProcessMcp } from './mcp.js';
import { outputData, undescribed } from './described.js';
import * as z from 'zod/mini';
import { parseJsonExact } from '../../src/json/exact.js';
import { pathOf } from '../../src/operations/declare.js';
import { DEMO_DATA } from '../../src/sandbox/demo-data.js';

const lines = (text: string) => text.split(/\r?\n/).filter(Boolean);

/** Every whole number the demo data holds (ids among them), each once, smallest first. */
function demoNumbers(): number[] {
  const found = new Set<number>();
  const walk = (value: unknown): void => {
    if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) found.add(value);
    else if (value && typeof value === 'object') for (const inner of Object.values(value)) walk(inner);
  };
  walk(DEMO_DATA);
  return [...found].sort((a, b) => a - b);
}

/**
 * What the sandbox (its demo data, the demo key) answers for an operation, derived so that a new operation needs demo
 * data and no list of test ids: for one with a path parameter, the first `wanted` ids it answers with data that passes
 * the declaration's schema (a list not empty); for one without, no ids, once its one answer passes. Undefined when it
 * answers no id at all, or fails the one without.
 */
export async function sampleIds(declaration: OperationDeclaration, baseUrl: string, wanted = 2): Promise<number[] | undefined> {
  const schema = declaration.list ? z.array(declaration.schema()) : declaration.schema();
  const answers = async (id?: number) => {
    const response = await fetch(`${baseUrl}${pathOf(declaration, id)}`, { headers: { 'X-API-Key': DEMO_KEY } });
    if (response.status !== 200) return false;
    const { data } = parseJsonExact(await response.text()) as { data: unknown };
    return z.safeParse(schema, data).success && (!declaration.list || (data as unknown[]).length > 0);
  };
  if (!declaration.param) return (await answers()) ? [] : undefined;
  const ids: number[] = [];
  for (const id of demoNumbers()) {
    if (ids.length === wanted) break;
    if (await answers(id)) ids.push(id);
  }
  return ids.length > 0 ? ids : undefined;
}

/** `ids`: ids the sandbox knows for the operation (none for one without a path parameter). */
export async function walkSurfaces(declaration: OperationDeclaration, ids: readonly number[]): Promise<void> {
  const { name } = declaration;
  const given = declaration.param ? ids.map(String) : [];

  // The client: its method, the request it builds, its refusal of a bad id before anything is sent.
  const sandbox = await startSandbox();
  try {
    const client = createClient({ baseUrl: sandbox.url, apiKey: DEMO_KEY, retries: 0 }) as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const method = client[declaration.client.method];
    expect(method, `client.${declaration.client.method}`).toBeTypeOf('function');
    const data = await method!.call(client, ...(declaration.param ? [ids[0]] : []));
    expect(Array.isArray(data)).toBe(declaration.list);
    if (declaration.param) await expect(method!.call(client, 0)).rejects.toMatchObject({ kind: 'usage' });
    await walkMcpTools(declaration, ids, sandbox.url);
  } finally {
    await sandbox.close();
  }

  // The command, in every format, one id and several, from stdin.
  const json = await gymctl([name, ...given.slice(0, 1), '--sandbox', '--json']);
  expect(json, `${name} --json`).toMatchObject({ code: 0 });
  expect(Array.isArray(JSON.parse(json.stdout))).toBe(declaration.list);
  const columns = columnNames(viewsOf(declaration).many);
  const csv = await gymctl([name, ...given, '--sandbox', '--format', 'csv']);
  expect(csv.code).toBe(0);
  expect(lines(csv.stdout)[0]).toBe(columns.join(','));
  const picked = await gymctl([name, ...given, '--sandbox', '--columns', columns.slice(0, 2).join(','), '--format', 'csv']);
  expect(lines(picked.stdout)[0]).toBe(columns.slice(0, 2).join(','));
  expect((await gymctl([name, ...given, '--sandbox', '--format', 'ndjson'])).code).toBe(0);
  expect((await gymctl(['--json', name, ...given, '--sandbox'])).code, '--json then the command is no field list').toBe(0);
  if (declaration.param) {
    const batch = await gymctl([name, '-', '--sandbox', '--json'], { stdin: `${given.join('\n')}\n` });
    expect(batch.code).toBe(0);
    expect(JSON.parse(batch.stdout)).toHaveLength(given.length);
    expect((await gymctl([name, ...given, '999999', '--sandbox', '--ignore-not-found', '--format', 'csv'])).code).toBe(0);
    expect((await gymctl([name, 'x', '--sandbox'])).code, 'a bad id is a usage error').toBe(2);
  }

  // Help, the man page, Tab, the flag table.
  for (const command of commandNames(declaration)) {
    expect((await gymctl(['--help'])).stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    expect((await gymctl(['help', command])).stdout).toContain(`Usage: gymctl ${command}`);
    expect(lines((await gymctl(['__complete', '--', ''])).stdout)).toContain(command);
    expect(appliesTo('--columns', command)).toBe(true);
  }
  const io = createIO(fakeStreams().streams, { env: {} });
  const program = await buildProgram({ io, factory: () => createFactory({ io, env: {}, signal: new AbortController().signal, flags: {}, disposers: [] }), parsed: () => {} });
  expect(manualMarkdown(program, TOP_EXAMPLES)).toContain(`### gymctl ${name}`);
  expect(manualMarkdown(program, TOP_EXAMPLES)).toContain(`(\`gymctl ${name}\`)`);
  expect(lines((await gymctl(['__complete', '--', name, '--columns', ''])).stdout)).toEqual([...columns, ':none']);
  expect(lines((await gymctl(['__complete', '--', 'schema', ''])).stdout)).toContain(name);

  // gymctl schema is the document's schema; the document has the path and the component.
  const schema = await gymctl(['schema', name]);
  expect(schema.code).toBe(0);
  const { $schema: _dialect, ...printed } = JSON.parse(schema.stdout) as Record<string, unknown>;
  expect(declaration.list ? printed.items : printed).toEqual(componentOf(declaration));
  expect(undescribed(printed, `gymctl schema ${name}`), 'what each field means').toEqual([]);
  const document = openApiDocument('0') as { paths: Record<string, { get: { operationId: string } }>; components: { schemas: Record<string, unknown> } };
  expect(document.paths[declaration.path]?.get.operationId).toBe(declaration.client.method);
  expect(document.components.schemas[declaration.openapi.component]).toEqual(componentOf(declaration));
}

/** The operation's MCP tools, listed and called through the SDK's client (which checks each answer against the tool's outputSchema). */
async function walkMcpTools(declaration: OperationDeclaration, ids: readonly number[], baseUrl: string): Promise<void> {
  const mcp = await inProcessMcp(OPERATIONS, baseUrl, DEMO_KEY);
  try {
    const { tools } = await mcp.client.listTools();
    const name = toolName(declaration);
    const tool = tools.find((listed) => listed.name === name);
    expect(tool, `the MCP tool ${name}`).toBeDefined();
    expect(tool!.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true, openWorldHint: true });
    expect(tool!.outputSchema?.type).toBe('object');
    expect(undescribed(outputData(tool!.outputSchema), `${name}.data`), 'what each field means').toEqual([]);
    expect(tool!.inputSchema.required ?? []).toEqual(declaration.param ? [declaration.param.name] : []);
    const args = declaration.param ? { [declaration.param.name]: String(ids[0]) } : {};
    const answer = await mcp.client.callTool({ name, arguments: args });
    expect(answer.isError, JSON.stringify(answer.content)).toBeFalsy();
    const { data } = answer.structuredContent as { data: unknown };
    expect(Array.isArray(data)).toBe(declaration.list);
    // Ids are strings of digits.
    const first = (Array.isArray(data) ? data[0] : data) as { id?: unknown } | undefined;
    if (first) expect(first.id).toMatch(/^[0-9]+$/);
    if (declaration.param) {
      const refused = await mcp.client.callTool({ name, arguments: { [declaration.param.name]: '0' } });
      expect(refused.isError).toBe(true);
      expect(JSON.parse((refused.content as Array<{ text: string }>)[0]!.text)).toMatchObject({ error: { kind: 'usage', correlationId: null } });
    }
    const batch = batchName(declaration);
    if (batch) {
      const listed = tools.find((other) => other.name === batch);
      expect(undescribed(outputData(listed?.outputSchema), `${batch}.data`), 'what each field means').toEqual([]);
      const many = await mcp.client.callTool({ name: batch, arguments: { [`${declaration.param!.name}s`]: ids.map(String) } });
      expect((many.structuredContent as { data: unknown[] }).data).toHaveLength(ids.length);
    }
  } finally {
    await mcp.close();
  }
}
