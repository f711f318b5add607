import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { academyResponseSchema, academySchema, apiKeySchema, errorBodySchema, familyMemberSchema, familyResponseSchema, meResponseSchema } from '../../src/api/public.js';
import { errorBodyAsRead } from '../../src/api/schemas.js';
import { configFileSchema } from '../../src/config/schema.js';
import { describeValue, formatIssues, LISTED_PROBLEMS, listIssues } from '../../src/api/validation.js';
import { parseSandboxData } from '../../src/sandbox/data.js';
import { DEMO_DATA } from '../../src/sandbox/demo-data.js';

/** The one-line message for a failed parse, or undefined when it succeeds. */
function problem(schema: z.core.$ZodType, input: unknown): string | undefined {
  const result = z.safeParse(schema, input, { reportInput: true });
  return result.success ? undefined : formatIssues(result.error.issues, schema);
}

const clone = <T>(value: T): T => structuredClone(value);

const academy = () => clone(DEMO_DATA.academies[0]!);
const member = () => clone(DEMO_DATA.members[0]!);
const apiKey = () => clone(DEMO_DATA.keys[0]!.key);

describe('demo data parses with the API schemas', () => {
  it.each(DEMO_DATA.keys.map((k) => [k.key.id, k.key] as const))('key %i', (_id, key) => {
    expect(z.safeParse(apiKeySchema, key).success).toBe(true);
    expect(z.safeParse(meResponseSchema, { data: key }).success).toBe(true);
  });

  it.each(DEMO_DATA.academies.map((a) => [a.id, a] as const))('academy %i', (_id, value) => {
    const parsed = z.safeParse(academyResponseSchema, { data: value });
    expect(parsed.success).toBe(true);
    expect(parsed.data).toEqual({ data: value });
  });

  it('every member as a family list', () => {
    const parsed = z.safeParse(familyResponseSchema, { data: DEMO_DATA.members });
    expect(parsed.success).toBe(true);
    expect(parsed.data?.data).toHaveLength(DEMO_DATA.members.length);
  });

  it('an empty family list', () => {
    expect(z.safeParse(familyResponseSchema, { data: [] }).success).toBe(true);
  });

  it('the whole data set with parseSandboxData', () => {
    expect(parseSandboxData(clone(DEMO_DATA))).toEqual(DEMO_DATA);
  });
});

describe('tolerance where the spec is silent', () => {
  it('keeps unknown fields, at every level', () => {
    const input = {
      data: { ...academy(), plan: 'gold', address: { ...academy().address, district: 'Alfama' }, coordinates: { lat: 1, lng: 2, alt: 3 } },
      meta: { page: 1 },
    };
    const parsed = z.parse(academyResponseSchema, input);
    expect(parsed).toEqual(input);
    expect((parsed as Record<string, unknown>).meta).toEqual({ page: 1 });
    expect((parsed.data as Record<string, unknown>).plan).toBe('gold');
    expect((parsed.data.address as Record<string, unknown>).district).toBe('Alfama');
  });

  it('keeps unknown fields of family members and keys', () => {
    expect(z.parse(familyMemberSchema, { ...member(), belt: 'blue' })).toMatchObject({ belt: 'blue' });
    expect(z.parse(apiKeySchema, { ...apiKey(), scopes: ['read'] })).toMatchObject({ scopes: ['read'] });
  });

  it('allows null string fields', () => {
    const input = { id: 1, name: null, currency: null, email: null, phone: null, address: null, coordinates: null, franchiseId: null, logoUrl: null, createdAt: null };
    expect(z.parse(academySchema, input)).toEqual(input);
    expect(z.safeParse(familyMemberSchema, { id: 1, academyId: 2, firstName: null, lastName: null, photoUrl: null, primaryFamilyMember: false }).success).toBe(true);
    expect(z.safeParse(apiKeySchema, { id: 1, name: null, academyIds: [], user: { id: 2, name: null, email: null } }).success).toBe(true);
  });

  it('allows absent string fields', () => {
    expect(z.parse(academySchema, { id: 1 })).toEqual({ id: 1 });
    expect(z.safeParse(familyMemberSchema, { id: 1, academyId: 2, primaryFamilyMember: true }).success).toBe(true);
    expect(z.safeParse(apiKeySchema, { id: 1, academyIds: [] }).success).toBe(true);
    // An error body as the client reads it: the exported schema says what the spec says (both fields strings), the client is lenient.
    expect(z.safeParse(errorBodyAsRead(), {}).success).toBe(true);
    expect(z.safeParse(errorBodySchema, {}).success).toBe(false);
  });

  it('accepts createdAt and currency in forms other than documented', () => {
    const parsed = z.parse(academySchema, { ...academy(), createdAt: '2024-01-01 10:00', currency: 'eur' });
    expect(parsed.createdAt).toBe('2024-01-01 10:00');
    expect(parsed.currency).toBe('eur');
  });

  it('accepts null coordinates members', () => {
    expect(z.safeParse(academySchema, { id: 1, coordinates: { lat: null, lng: null } }).success).toBe(true);
  });
});

describe('strictness where the spec speaks', () => {
  it.each([
    ['id as a string', academySchema, { ...academy(), id: '1' }],
    ['id as a fraction', academySchema, { ...academy(), id: 1.5 }],
    ['id missing', academySchema, { name: 'x' }],
    ['franchiseId as a string', academySchema, { ...academy(), franchiseId: '10' }],
    ['name as a number', academySchema, { ...academy(), name: 5 }],
    ['academyIds of strings', apiKeySchema, { ...apiKey(), academyIds: ['1'] }],
    ['academyIds not an array', apiKeySchema, { ...apiKey(), academyIds: 1 }],
    ['academyIds missing', apiKeySchema, { id: 1 }],
    ['primaryFamilyMember as a string', familyMemberSchema, { ...member(), primaryFamilyMember: 'yes' }],
    ['primaryFamilyMember as null', familyMemberSchema, { ...member(), primaryFamilyMember: null }],
    ['primaryFamilyMember missing', familyMemberSchema, { id: 1, academyId: 1 }],
    ['family data as an object', familyResponseSchema, { data: member() }],
    ['family data as null', familyResponseSchema, { data: null }],
    ['family data missing', familyResponseSchema, {}],
    ['body not an object', academyResponseSchema, [academy()]],
  ] as const)('rejects %s', (_name, schema, input) => {
    expect(z.safeParse(schema as z.core.$ZodType, input).success).toBe(false);
  });
});

describe('formatIssues', () => {
  it('names the field and the types', () => {
    expect(problem(academyResponseSchema, { data: { ...academy(), id: '1' } })).toBe('data.id: expected integer, got string');
  });

  it('says a fraction is a number, not an integer', () => {
    expect(problem(academyResponseSchema, { data: { ...academy(), id: 1.5 } })).toBe('data.id: expected integer, got number');
  });

  it('names array elements by index', () => {
    const members = [member(), { ...member(), id: 502, primaryFamilyMember: 'yes' }];
    expect(problem(familyResponseSchema, { data: members })).toBe('data[1].primaryFamilyMember: expected boolean, got string');
    expect(problem(familyResponseSchema, { data: [{ ...member(), primaryFamilyMember: 'yes' }] })).toBe('data[0].primaryFamilyMember: expected boolean, got string');
  });

  it('names the values a setting may take, not "Invalid input"', () => {
    expect(problem(configFileSchema(), { profiles: { default: { format: 'yaml' } } })).toBe('profiles.default.format: expected one of table, json, ndjson, csv');
  });

  it('names elements of an id list', () => {
    expect(problem(meResponseSchema, { data: { ...apiKey(), academyIds: [1, '2'] } })).toBe('data.academyIds[1]: expected integer, got string');
  });

  it('says when a field is missing', () => {
    const { id: _id, ...rest } = academy();
    expect(problem(academyResponseSchema, { data: rest })).toBe('data.id: missing (expected integer)');
  });

  it('says when the family data is not an array', () => {
    expect(problem(familyResponseSchema, { data: member() })).toBe('data: expected array, got object');
    expect(problem(familyResponseSchema, { data: null })).toBe('data: expected array, got null');
  });

  it('names the body when the whole body is wrong', () => {
    expect(problem(academyResponseSchema, [])).toBe('(body): expected object, got array');
  });

  it('names nested objects', () => {
    expect(problem(academyResponseSchema, { data: { ...academy(), address: { city: 7 } } })).toBe('data.address.city: expected string, got integer');
  });

  it('counts further problems', () => {
    expect(problem(academyResponseSchema, { data: { id: '1', name: 2 } })).toBe('data.id: expected integer, got string (and 1 more problem)');
    expect(problem(academyResponseSchema, { data: { id: '1', name: 2, email: 3 } })).toBe('data.id: expected integer, got string (and 2 more problems)');
  });

  it('lists every problem, a line each, for --debug: the first of them is the one line', () => {
    const listed = (schema: z.core.$ZodType, input: unknown) => {
      const result = z.safeParse(schema, input, { reportInput: true });
      return result.success ? [] : listIssues(result.error.issues, schema);
    };
    expect(listed(academyResponseSchema, { data: { ...academy(), id: '1', name: 2 } })).toEqual([
      'data.id: expected integer, got string',
      'data.name: expected string, got integer',
    ]);
    expect(listed(academyResponseSchema, { data: academy() })).toEqual([]);
    // Bounded: past the first LISTED_PROBLEMS, how many more.
    const members = Array.from({ length: LISTED_PROBLEMS + 5 }, () => ({ ...member(), firstName: 1 }));
    const lines = listed(familyResponseSchema, { data: members });
    expect(lines).toHaveLength(LISTED_PROBLEMS + 1);
    expect(lines[0]).toMatch(/^data\[0\]\S*firstName: expected string, got integer$/);
    expect(lines[LISTED_PROBLEMS - 1]).toMatch(new RegExp(`^data\\[${LISTED_PROBLEMS - 1}\\]`));
    expect(lines.at(-1)).toBe('and 5 more');
  });

  it('has a fallback for no issues', () => {
    expect(formatIssues([], academySchema)).toBe('does not match the expected shape');
  });
});

describe('describeValue', () => {
  it.each([
    [null, 'null'],
    [[], 'array'],
    [1, 'integer'],
    [1.5, 'number'],
    ['x', 'string'],
    [true, 'boolean'],
    [{}, 'object'],
    [undefined, 'undefined'],
  ])('%j is %s', (value, expected) => {
    expect(describeValue(value)).toBe(expected);
  });
});

describe('parseSandboxData', () => {
  const data = () =>
    clone(DEMO_DATA) as unknown as {
      keys: Array<{ secret: unknown; key: Record<string, unknown> }>;
      academies: Array<Record<string, unknown>>;
      members: Array<Record<string, unknown>>;
      families: unknown[][];
    };

  it('names a field of the wrong type', () => {
    const input = data();
    input.academies[0]!.id = '1';
    expect(() => parseSandboxData(input)).toThrow('academies[0].id: expected integer, got string');
  });

  it('names a bad member field', () => {
    const input = data();
    input.members[2]!.primaryFamilyMember = 'no';
    expect(() => parseSandboxData(input)).toThrow('members[2].primaryFamilyMember: expected boolean, got string');
  });

  it('names a bad key field', () => {
    const input = data();
    input.keys[1]!.key.academyIds = ['1'];
    expect(() => parseSandboxData(input)).toThrow('keys[1].key.academyIds[0]: expected integer, got string');
  });

  it('names a missing section', () => {
    const { families: _f, ...rest } = data();
    expect(() => parseSandboxData(rest)).toThrow('families: missing (expected array)');
  });

  it('refuses a secret with spaces', () => {
    const input = data();
    input.keys[0]!.secret = 'has space';
    expect(() => parseSandboxData(input)).toThrow(/^keys\[0\]\.secret: /);
  });

  it('refuses an empty secret', () => {
    const input = data();
    input.keys[0]!.secret = '';
    expect(() => parseSandboxData(input)).toThrow(/^keys\[0\]\.secret: /);
  });

  it('refuses duplicate academy ids', () => {
    const input = data();
    input.academies[2]!.id = input.academies[0]!.id;
    expect(() => parseSandboxData(input)).toThrow('academies[2].id: duplicate id 1');
  });

  it('refuses duplicate member ids', () => {
    const input = data();
    input.members[1]!.id = 501;
    expect(() => parseSandboxData(input)).toThrow('members[1].id: duplicate id 501');
  });

  it('refuses duplicate key ids', () => {
    const input = data();
    input.keys[1]!.key.id = 101;
    expect(() => parseSandboxData(input)).toThrow('keys[1].id: duplicate id 101');
  });

  it('refuses duplicate secrets', () => {
    const input = data();
    input.keys[1]!.secret = input.keys[0]!.secret;
    expect(() => parseSandboxData(input)).toThrow('keys[1].secret: duplicate secret');
  });

  it('refuses a family naming an unknown member', () => {
    const input = data();
    input.families[1]!.push(999);
    expect(() => parseSandboxData(input)).toThrow('families[1][2]: no member with id 999');
  });

  it('refuses a member in two families', () => {
    const input = data();
    const last = input.families.length - 1;
    input.families[last]!.push(501);
    expect(() => parseSandboxData(input)).toThrow(`families[${last}][${input.families[last]!.length - 1}]: member 501 is in more than one family`);
  });

  it('refuses a non-integer family entry', () => {
    const input = data();
    input.families[0]![0] = '501';
    expect(() => parseSandboxData(input)).toThrow('families[0][0]: expected integer, got string');
  });

  it('refuses input that is not an object', () => {
    expect(() => parseSandboxData(null)).toThrow('(body): expected object, got null');
    expect(() => parseSandboxData([])).toThrow('(body): expected object, got array');
  });
});
