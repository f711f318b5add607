/**
 * idsIn (src/api/ids.ts): the ids of an answer, each the number or bigint the client's mode asks for, and every other
 * bigint a number in the default mode, so JSON.stringify of the data never throws; values that are none of these, as
 * they are.
 */
import { describe, expect, it } from 'vitest';
import { idsIn } from '../../src/api/ids.js';

type Schema = Parameters<typeof idsIn>[1];
const schema = (def: Record<string, unknown>) => ({ _zod: { def } }) as Schema;
const ID = schema({ type: 'bigint' });
const ANY = schema({ type: 'unknown' });
const RECORD = schema({ type: 'object', shape: { id: ID, coachId: schema({ type: 'optional', innerType: ID }), extra: ANY } });
const isId = (s: Schema) => s === ID;
const beyond = (id: bigint, where: string) => new Error(`${where}: ${id}`);
const BIG = 2n ** 60n;

describe('idsIn', () => {
  it('by default, a bigint anywhere the spec names no id is the number JSON.parse would give, however deep', () => {
    const answer = { id: 1, extra: [BIG, { n: BIG, none: null, list: [BIG] }], other: { n: BIG, none: null } };
    expect(idsIn(answer, RECORD, 'number', isId, beyond)).toEqual({
      id: 1,
      extra: [Number(BIG), { n: Number(BIG), none: null, list: [Number(BIG)] }],
      other: { n: Number(BIG), none: null },
    });
    expect(() => JSON.stringify(answer)).not.toThrow();
  });

  it("with ids: 'bigint', ids are bigints and every other value is left as it is, a missing or null id too", () => {
    const answer = { id: 1, coachId: null, extra: { n: BIG }, other: BIG };
    expect(idsIn(answer, RECORD, 'bigint', isId, beyond)).toEqual({ id: 1n, coachId: null, extra: { n: BIG }, other: BIG });
    expect(idsIn({ id: 2, coachId: undefined }, RECORD, 'bigint', isId, beyond)).toEqual({ id: 2n, coachId: undefined });
    expect(idsIn(BIG, ANY, 'bigint', isId, beyond)).toBe(BIG);
  });

  it('an id beyond a number is refused by default, named by where it is: data when the answer is the id itself', () => {
    expect(() => idsIn(BIG, ID, 'number', isId, beyond)).toThrow(`data: ${BIG}`);
    expect(() => idsIn([{ id: 1 }, { id: BIG }], schema({ type: 'array', element: RECORD }), 'number', isId, beyond)).toThrow(`[1].id: ${BIG}`);
  });

  it('a value that is not what its schema says is handed back as it is', () => {
    expect(idsIn('ab', RECORD, 'number', isId, beyond)).toBe('ab');
    expect(idsIn('ab', schema({ type: 'array', element: ID }), 'bigint', isId, beyond)).toBe('ab');
  });
});
