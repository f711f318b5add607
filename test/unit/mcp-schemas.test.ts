// The tools' schemas as a client reads them (src/mcp/server.ts): JSON Schema 2020-12, the default of MCP 2025-11-25,
// declared with $schema, and every answer (whole, shortened, cut short by the time limit) valid under ajv's 2020-12
// validator and under the SDK client, which checks structuredContent against the output schema itself.
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fitAnswer } from '../../src/mcp/fit.js';
import { OPERATIONS } from '../../src/operations/index.js';
import { DEMO_DATA, DEMO_KEY } from '../../src/sandbox/demo-data.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { type InProcessMcp, inProcessMcp } from '../helpers/mcp.js';

const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

let sandbox: Sandbox;
let mcp: InProcessMcp;
let tools: Tool[];
beforeAll(async () => {
  sandbox = await startSandbox();
  mcp = await inProcessMcp(OPERATIONS, sandbox.url, DEMO_KEY);
  tools = (await mcp.client.listTools()).tools;
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

const CALLS: Record<string, Record<string, unknown>> = {
  whoami: {},
  get_academy: { academyId: '1' },
  get_academies: { academyIds: ['1', '2', '999'] },
  list_academies: {},
  list_family: { memberId: '501' },
};

describe("the tools' schemas", () => {
  it('declare JSON Schema 2020-12, input and output, and compile under ajv 2020 in strict mode', () => {
    const ajv = validator();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(Object.keys(CALLS)));
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
    const validate = ajv.compile(tools.find((t) => t.name === 'list_academies')!.outputSchema!);
    const { franchiseId, ...academy } = DEMO_DATA.academies[0]!;
    const data = Array.from({ length: 300 }, (_, i) => ({ ...academy, id: String(i + 1), franchiseId: franchiseId === null ? null : String(franchiseId) }));
    const how = { shape: 'batch', command: 'gymctl academies --json', tool: 'get_academies', perCall: 20, cap: 500, timeLimitMs: 20_000 } as const;
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
