/** The MCP tools' shapes and names, derived from the declarations: ids as strings, the declarations' own schemas untouched. */
import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { GymApiError } from '../../src/api/errors.js';
import { nextStep, toolFailure } from '../../src/mcp/failures.js';
import { checkIdInput, idsAsText, withTextIds } from '../../src/mcp/shapes.js';
import { batchName, toolName, toolsOf } from '../../src/mcp/tools.js';
import { OPERATIONS, academy, family, whoami } from '../../src/operations/index.js';
import { DEMO_KEY } from '../../src/sandbox/demo-data.js';
import { widgets } from '../fixtures/widgets.js';
import { outputData, undescribed } from '../helpers/described.js';
import { inProcessMcp } from '../helpers/mcp.js';

const GET_ACADEMY = toolName(academy);

describe('ids as strings', () => {
  it("derives a schema whose ids are strings, leaving the declaration's schema as it was", () => {
    const derived = withTextIds(academy.schema());
    expect(z.safeParse(derived, { id: '1', franchiseId: '9223372036854775807' }).success).toBe(true);
    expect(z.safeParse(derived, { id: 1 }).success).toBe(false);
    expect(z.safeParse(academy.schema(), { id: 1, franchiseId: 9223372036854775807n }).success).toBe(true);
    expect(z.safeParse(academy.schema(), { id: '1' }).success).toBe(false);
    expect(z.safeParse(withTextIds(whoami.schema()), { id: '101', academyIds: ['1', '2'], user: { id: '9' } }).success).toBe(true);
  });

  it("keeps what each field means: a rebuilt field, an id made a string of digits included, has the declaration's description", () => {
    const meaning = (schema: z.core.$ZodType) => z.globalRegistry.get(schema)?.description;
    const shape = (schema: z.core.$ZodType) => (schema._zod.def as unknown as { shape: Record<string, z.core.$ZodType> }).shape;
    const [declared, derived] = [academy.schema(), withTextIds(academy.schema())];
    expect(meaning(derived)).toBe(meaning(declared));
    for (const field of ['id', 'franchiseId', 'address', 'name']) {
      expect(meaning(shape(derived)[field]!), field).toBe(meaning(shape(declared)[field]!));
      expect(meaning(shape(derived)[field]!), field).toMatch(/\w/);
    }
    const key = shape(withTextIds(whoami.schema()));
    expect(meaning(key.academyIds!)).toBe('Identifiers of the academies the key is scoped to');
    expect(z.safeParse(key.academyIds!, ['1']).success).toBe(true);
  });

  it('turns every id into its digits, leaves other numbers, and writes a bigint in a field the schema leaves open as digits too', () => {
    const answer = { id: 9223372036854775807n, coordinates: { lat: 38.7, lng: -9.1 }, franchiseId: null, extra: { count: 3, big: 9007199254740993n }, tags: [1n << 60n] };
    expect(idsAsText(academy.schema(), answer)).toEqual({
      id: '9223372036854775807',
      coordinates: { lat: 38.7, lng: -9.1 },
      franchiseId: null,
      extra: { count: 3, big: '9007199254740993' },
      tags: [String(1n << 60n)],
    });
    expect(idsAsText(z.array(family.schema()), [{ id: 502, academyId: 1, primaryFamilyMember: false }])).toEqual([{ id: '502', academyId: '1', primaryFamilyMember: false }]);
    expect(() => JSON.stringify(idsAsText(academy.schema(), answer))).not.toThrow();
  });

  it('takes an id as the CLI does, as digits up to 2^63−1 or a number up to 2^53−1, and refuses the rest as a usage error', () => {
    expect(checkIdInput('42', 'academy id')).toBe(42);
    expect(checkIdInput(42, 'academy id')).toBe(42);
    expect(checkIdInput('9223372036854775807', 'academy id')).toBe(9223372036854775807n);
    for (const bad of ['9223372036854775808', '0', '../1', '1?x', 'https://example.com/1', '', 0, -3, 2.5, 2 ** 53, null, {}, ['1'], undefined]) {
      expect(() => checkIdInput(bad, 'academy id'), JSON.stringify(bad) ?? 'undefined').toThrow(expect.objectContaining({ kind: 'usage' }));
    }
    expect(() => checkIdInput(2 ** 53, 'academy id')).toThrow(/send it as a string of digits/);
    expect(() => checkIdInput(undefined, 'academy id')).toThrow(/^missing academy id/);
  });
});

describe('what the tools answer, as a client lists it', () => {
  it("every field of every tool's output schema from tools/list, nested ones and ids too, has a description", async () => {
    const mcp = await inProcessMcp([...OPERATIONS, widgets], 'http://127.0.0.1:9', DEMO_KEY);
    try {
      const { tools } = await mcp.client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(toolsOf([...OPERATIONS, widgets]).map((tool) => tool.name));
      for (const tool of tools) {
        const data = outputData(tool.outputSchema);
        expect(data.type, tool.name).toMatch(/^(object|array)$/);
        expect(undescribed(data, `${tool.name}.data`)).toEqual([]);
        // And what the tool adds around the records: data itself, notFound, and a shortened answer's note, field by field.
        expect(undescribed({ ...tool.outputSchema, description: 'the answer' }, tool.name)).toEqual([]);
        expect(Object.keys((tool.outputSchema?.properties as object) ?? {})).toContain('truncated');
      }
      const academyId = (outputData(tools.find((tool) => tool.name === GET_ACADEMY)!.outputSchema).properties as Record<string, Record<string, unknown>>).id;
      expect(academyId).toMatchObject({ type: 'string', description: 'Academy identifier' });
    } finally {
      await mcp.close();
    }
  });
});

describe('tool names', () => {
  it('one per operation, with its verb, and a batch for an operation that answers one record by id', () => {
    expect([whoami, academy, family, widgets].map(toolName)).toEqual(['whoami', 'get_academy', 'list_family', 'list_widgets']);
    expect([whoami, academy, family, widgets].map(batchName)).toEqual([undefined, 'get_academies', undefined, undefined]);
    expect(toolsOf([academy]).map((tool) => tool.name)).toEqual(['get_academy', 'get_academies', 'list_academies']);
    // Every operation's tools, in the declarations' order: a fourth operation's come after the others', the others' unchanged.
    expect(toolsOf([...OPERATIONS, widgets]).map((tool) => tool.name)).toEqual([...OPERATIONS, widgets].flatMap((declaration) => toolsOf([declaration]).map((tool) => tool.name)));
  });
});

describe('a failure as a tool result', () => {
  it('carries the kind, the correlation ID, the status, the id and the next step, the key redacted', () => {
    const key = 'secret-key-0123456789';
    const limited = new GymApiError('unavailable', `academy 1: rate limited for ${key}`, { status: 429, correlationId: 'c-1', id: 1n, retryAfterMs: 1500, reason: 'rate_limited' });
    expect(toolFailure(limited, key)).toEqual({
      message: 'academy 1: rate limited for [redacted]',
      kind: 'unavailable',
      correlationId: 'c-1',
      status: 429,
      id: '1',
      retryAfterSeconds: 2,
      next: 'The API is rate limiting: wait 2 s before calling again.',
    });
    expect(nextStep(new GymApiError('unauthorized', 'x'))).toMatch(/gymctl auth login/);
    expect(nextStep(new GymApiError('not_found', 'x', { id: 9 }))).toMatch(/outside this key's scope/);
    expect(nextStep(new GymApiError('unavailable', 'x', { reason: 'timeout' }))).toMatch(/--timeout/);
    expect(nextStep(new GymApiError('invalid_response', 'x'))).toMatch(/gymctl doctor/);
  });
});
