/**
 * The records' named types (`Academy`, …, `ErrorBody`) are written out beside their schemas, for the comment on each
 * field that editors show; the schemas stay the one source of truth: each type is the schema's output without the index
 * signature of a loose object, both ways (checked by `npm run typecheck`), and each comment is the description the schema
 * registers for the field. What the server sends beyond the schema is kept, and reached through `extraFields`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod/mini';
import {
  type Academy,
  type Address,
  type ApiKey,
  type ApiPromise,
  type Coordinates,
  createClient,
  type ErrorBody,
  type FamilyMember,
  type PhotoUrls,
  type User,
  academySchema,
  addressSchema,
  apiKeySchema,
  coordinatesSchema,
  errorBodySchema,
  extraFields,
  familyMemberSchema,
  photoUrlsSchema,
  userSchema,
} from '../../src/index.js';
import { ROOT } from '../helpers/cli.js';

/** A type without the `[key: string]: unknown` a loose object's output has, at every level. */
type Closed<T> = T extends readonly (infer E)[] ? Closed<E>[] : T extends object ? { [K in keyof T as string extends K ? never : K]: Closed<T[K]> } : T;
type Output<S extends z.core.$ZodType> = Closed<z.output<S>>;

describe('the named types are the schemas’ output, closed', () => {
  it('each is exactly its schema’s output without the index signature (a compile-time check, npm run typecheck)', () => {
    expectTypeOf<Academy>().toEqualTypeOf<Output<typeof academySchema>>();
    expectTypeOf<Address>().toEqualTypeOf<Output<typeof addressSchema>>();
    expectTypeOf<Coordinates>().toEqualTypeOf<Output<typeof coordinatesSchema>>();
    expectTypeOf<ApiKey>().toEqualTypeOf<Output<typeof apiKeySchema>>();
    expectTypeOf<User>().toEqualTypeOf<Output<typeof userSchema>>();
    expectTypeOf<FamilyMember>().toEqualTypeOf<Output<typeof familyMemberSchema>>();
    expectTypeOf<PhotoUrls>().toEqualTypeOf<Output<typeof photoUrlsSchema>>();
    expectTypeOf<ErrorBody>().toEqualTypeOf<Output<typeof errorBodySchema>>();
    // What a schema parses is still one, with the unknown fields it keeps.
    expectTypeOf<z.output<typeof academySchema>>().toExtend<Academy>();
  });

  it('the client’s methods return them by name, and a misspelt field does not compile', () => {
    const client = createClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'test_key_0123456789' });
    expectTypeOf(client.getAcademy).returns.toEqualTypeOf<ApiPromise<Academy>>();
    expectTypeOf(client.getMe).returns.toEqualTypeOf<ApiPromise<ApiKey>>();
    expectTypeOf(client.listFamily).returns.toEqualTypeOf<ApiPromise<FamilyMember[]>>();
    const typo = (academy: Academy) =>
      // @ts-expect-error: Academy has no field `nmae` (no index signature lets it through).
      academy.nmae;
    expect(typo({ id: 1, name: 'Alfama' })).toBeUndefined();
    expectTypeOf<Academy>().not.toHaveProperty('nmae');
  });

  it('ErrorBody is what the spec says (§2.8, §7 rule 1), as an independent reading of it types it: assignable both ways', () => {
    type IndependentReading = { message: string; correlationId: string };
    expectTypeOf<ErrorBody>().toEqualTypeOf<IndependentReading>();
    expectTypeOf<ErrorBody>().toExtend<IndependentReading>();
    expectTypeOf<IndependentReading>().toExtend<ErrorBody>();
  });
});

/** Where each named type is declared, and the schema it is the output of. */
const NAMED: Array<{ name: string; file: string; schema: z.ZodMiniObject }> = [
  { name: 'Academy', file: 'src/operations/academy.ts', schema: academySchema },
  { name: 'Address', file: 'src/operations/academy.ts', schema: addressSchema },
  { name: 'Coordinates', file: 'src/operations/academy.ts', schema: coordinatesSchema },
  { name: 'ApiKey', file: 'src/operations/whoami.ts', schema: apiKeySchema },
  { name: 'User', file: 'src/operations/whoami.ts', schema: userSchema },
  { name: 'FamilyMember', file: 'src/operations/family.ts', schema: familyMemberSchema },
  { name: 'PhotoUrls', file: 'src/operations/family.ts', schema: photoUrlsSchema },
  { name: 'ErrorBody', file: 'src/api/schemas.ts', schema: errorBodySchema },
];

const descriptionOf = (schema: z.core.$ZodType) => z.globalRegistry.get(schema)?.description;

/** A named type's declaration in its source: its comment, and each member's line with the comment above it (undefined when it has none). */
function declaration(file: string, name: string) {
  const source = readFileSync(path.join(ROOT, file), 'utf8');
  const found = new RegExp(`(?:/\\*\\* (.+) \\*/\\n)?export type ${name} = \\{\\n([\\s\\S]*?)\\n\\};\\n`).exec(source);
  if (!found) throw new Error(`${file} declares no type ${name} = { … }`);
  const lines = found[2]!.split('\n');
  const members = lines.flatMap((line, i) => {
    const member = /^ {2}(\w+)\??: /.exec(line);
    const comment = /^ {2}\/\*\* (.+) \*\/$/.exec(lines[i - 1] ?? '');
    return member ? [{ field: member[1]!, comment: comment?.[1] }] : [];
  });
  return { comment: found[1], members, lines };
}

describe('each field’s comment is its schema’s description', () => {
  it.each(NAMED)('$name: one member per field of the schema, each with the description as its comment', ({ name, file, schema }) => {
    const { comment, members, lines } = declaration(file, name);
    const shape = schema._zod.def.shape;
    // Nothing but members and their one-line comments.
    expect(lines.length).toBe(members.length * 2);
    expect(members).toEqual(Object.entries(shape).map(([field, fieldSchema]) => ({ field, comment: descriptionOf(fieldSchema) })));
    for (const member of members) expect(member.comment, `${name}.${member.field}`).toMatch(/\S/);
    // The type's own comment starts with the record's description.
    expect(comment?.startsWith(descriptionOf(schema)!), `${name}: ${comment}`).toBe(true);
  });

  it('a comment that drifts from its description is found', () => {
    const { members } = declaration('src/operations/academy.ts', 'Academy');
    const drifted = members.map((member) => (member.field === 'name' ? { ...member, comment: 'The name' } : member));
    const expected = Object.entries(academySchema._zod.def.shape).map(([field, fieldSchema]) => ({ field, comment: descriptionOf(fieldSchema) }));
    expect(drifted).not.toEqual(expected);
    expect(members).toEqual(expected);
  });
});

describe('extraFields', () => {
  it('gives what the server sent beyond the schema, at the record’s own level, as it came', () => {
    const answer = { id: 1, name: 'Alfama Jiu-Jitsu', timezone: 'Europe/Lisbon', address: { city: 'Lisboa', district: 'Lisboa' }, tags: ['gi', 'no-gi'] };
    const parsed = z.parse(academySchema, answer);
    expect(extraFields(parsed, academySchema)).toEqual({ timezone: 'Europe/Lisbon', tags: ['gi', 'no-gi'] });
    expect(extraFields(parsed.address, addressSchema)).toEqual({ district: 'Lisboa' });
    expect(extraFields({ id: 1, name: 'Alfama' }, academySchema)).toEqual({});
  });

  it('keeps a `__proto__` field as a field of its own, and gives an empty object for anything but a record', () => {
    const parsed = JSON.parse('{"id":1,"__proto__":{"polluted":true}}') as object;
    const extra = extraFields(parsed, academySchema);
    expect(Object.getPrototypeOf(extra)).toBe(Object.prototype);
    expect(Object.hasOwn(extra, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    for (const nothing of [null, undefined, [1, 2]]) expect(extraFields(nothing, academySchema)).toEqual({});
  });
});
