// The tools' schemas as a client reads them (src/mcp/server.ts): JSON Schema 2020-12, the default of MCP 2025-11-25,
// declared with $schema, and every answer (whole, shortened, cut short by the time limit) valid under ajv's 2020-12
// validator and under the SDK client, which checks structuredContent against the output schema itself.
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fitAnswer } from '../../src/mcp/fit.js';
import { OPERATIONS, academy } from '../../src/operations/index.js';
import { DEMO_DATA, DEMO_KEY } from '../../src/sandbox/demo-data.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { type InProcessMcp, inProcessMcp } from '../helpers/mcp.js';
import { sampleIds } from '../helpers/surfaces.js';
import { toolName, toolsOf } from '../../src/mcp/tools.js';

/** The academy operation's tools: its own, its batch, and the one listing every academy of the key. */
/** The tool listing every academy of the key, the academy operation's last. */
const listAcademies = toolsOf([academy]).at(-1)!;

const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

let sandbox: Sandbox;
let mcp: InProcessMcp;
let tools: Tool[];
/** Each declared tool's arguments: ids the sandbox answers for its operation (its demo data's), and one it does not know in a batch. */
let CALLS: Record<string, Record<string, unknown>>;
beforeAll(async () => {
  sandbox = await startSandbox();
  mcp = await inProcessMcp(OPERATIONS, sandbox.url, DEMO_KEY);
  tools = (await mcp.client.listTools()).tools;
  const calls = OPERATIONS.map(async (declaration) => {
    const ids = ((await sampleIds(declaration, sandbox.url)) ?? []).map(String);
    const { param } = declaration;
    return toolsOf([declaration]).map(({ name, inputSchema }) => {
      if (!param || !inputSchema) return [name, {}] as const;
      return [name, name === toolName(declaration) ? { [param.name]: ids[0] } : { [`${param.name}s`]: [...ids, '999'] }] as const;
    });
  });
  CALLS = Object.fromEntries((await Promise.all(calls)).flat());
});
afterAll(async () => {
  await mcp.close();
  await sandbox.close();
});

/** ajv's 2020-12 validator, strict: a keyword it does not know, or a draft-07 form, fails the compile. */
function validator() {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  // ajv-formats is CommonJS: its default export is the plugin itself.
  (addFormats as unknown as (ajv: Ajv2020) => void)(ajv);
  return ajv;
}

describe("the tools' schemas", () => {
  it('declare JSON Schema 2020-12, input and output, and compile under ajv 2020 in strict mode', () => {
    const ajv = validator();
    // Every tool listed is called below.
    expect(tools.map((tool) => tool.name)).toEqual(Object.keys(CALLS));
    for (const tool of tools) {
      expect(tool.inputSchema.$schema, tool.name).toBe(DRAFT_2020_12);
      expect(tool.outputSchema?.$schema, tool.name).toBe(DRAFT_2020_12);
      expect(() => ajv.compile(tool.inputSchema), tool.name).not.toThrow();
      expect(() => ajv.compile(tool.outputSchema!), tool.name).not.toThrow();
    }
  });

  it("every tool's answer is valid under its output schema, for ajv 2020 and for the SDK client", async () => {
    const ajv = validator();
    for (const [name, args] of Object.entries(CALLS)) {
      const tool = tools.find((t) => t.name === name)!;
      // The SDK client validates structuredContent against the output schema: an invalid one throws here.
      const result = (await mcp.client.callTool({ name, arguments: args })) as CallToolResult;
      expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
      const validate = ajv.compile(tool.outputSchema!);
      expect(validate(result.structuredContent), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
      expect(result.structuredContent).toMatchObject({ complete: true });
    }
  });

  it('an answer shortened to fit, past the cap or cut short by the time limit is valid too; one without data is not', () => {
    const ajv = validator();
    const validate = ajv.compile(tools.find((t) => t.name === listAcademies.name)!.outputSchema!);
    const { franchiseId, ...academy } = DEMO_DATA.academies[0]!;
    const data = Array.from({ length: 300 }, (_, i) => ({ ...academy, id: String(i + 1), franchiseId: franchiseId === null ? null : String(franchiseId) }));
    const how = { ...listAcademies.shortening({}), timeLimitMs: 20_000 };
    for (const [limit, unfetched] of [
      [16 * 1024, []],
      [1024 * 1024, [{ ids: ['301'], reason: 'cap' }]],
      [1024 * 1024, [{ ids: ['301', '302'], reason: 'time_limit' }]],
    ] as const) {
      const answer = fitAnswer({ data, notFound: [] }, limit, how, unfetched).structuredContent;
      expect(answer).toMatchObject({ complete: false });
      expect(validate(answer), JSON.stringify(validate.errors)).toBe(true);
    }
    expect(validate({ notFound: [], complete: true })).toBe(false);
  });
});
