/** What an id is: a positive integer, up to 2^63−1 (the library checks ids with this; the CLI parses them in commands/shared/ids.ts). */
import type { Id } from './schemas.js';

/** The largest id: 2^63−1, the largest signed 64-bit integer, as many APIs' ids are. */
export const MAX_ID = 9_223_372_036_854_775_807n;

/** A number up to 2^53−1, or a bigint up to 2^63−1; positive either way. */
export function isValidId(value: unknown): value is Id {
  if (typeof value === 'bigint') return value > 0n && value <= MAX_ID;
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

/**
 * How the client's typed methods hand ids back (`createClient({ ids })`): `'number'` (the default), where an id beyond
 * 2^53−1 fails as invalid_response; or `'bigint'`, every id a bigint, exact to 2^63−1 and beyond.
 */
export type IdMode = 'number' | 'bigint';

export const ID_MODES: readonly IdMode[] = ['number', 'bigint'];

/** What an id is in mode M. */
export type IdOf<M extends IdMode> = M extends 'bigint' ? bigint : number;

/** `T` (a record as read, each id a number or a bigint) with every id an `IdOf<M>`: ids are where bigint can be. */
export type IdsAs<T, M extends IdMode> = bigint extends T
  ? Exclude<T, number | bigint> | IdOf<M>
  : T extends readonly (infer E)[]
    ? IdsAs<E, M>[]
    : T extends object
      ? { [K in keyof T]: IdsAs<T[K], M> }
      : T;

/** A schema's definition, as far as the walk below reads it (zod's own, of every schema kind it meets). */
type Def = { type: string; shape?: Record<string, Schema>; element?: Schema; innerType?: Schema; catchall?: Schema };
type Schema = { _zod: { def: Def } };

/**
 * `value` (validated against `schema`) with each id in `mode`, where `isId` tells which schemas are ids. In `'number'`
 * mode a bigint id fails with `beyond(id, where)`, and a bigint the spec does not name (an extra field) is the number
 * JSON.parse would give, so that JSON.stringify of the data never throws. Objects are changed in place: they are the
 * answer's own.
 */
export function idsIn(value: unknown, schema: Schema, mode: IdMode, isId: (schema: Schema) => boolean, beyond: (id: bigint, where: string) => Error, where = ''): unknown {
  if (value === null || value === undefined) return value;
  if (isId(schema)) {
    if (mode === 'bigint') return BigInt(value as number | bigint);
    if (typeof value === 'bigint') throw beyond(value, where || 'data');
    return value;
  }
  const { def } = schema._zod;
  if (def.innerType) return idsIn(value, def.innerType, mode, isId, beyond, where);
  if (def.type === 'array' && Array.isArray(value)) return value.map((item, i) => idsIn(item, def.element!, mode, isId, beyond, `${where}[${i}]`));
  if (def.type === 'object' && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const known = Object.hasOwn(def.shape!, key) ? def.shape![key] : undefined;
      record[key] = known ? idsIn(record[key], known, mode, isId, beyond, where ? `${where}.${key}` : key) : mode === 'number' ? withoutBigints(record[key]) : record[key];
    }
    return record;
  }
  return mode === 'number' ? withoutBigints(value) : value;
}

/** A value the spec does not describe, with each bigint the number JSON.parse would have made of it. */
function withoutBigints(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (typeof value !== 'object' || value === null) return value;
  const object = value as Record<string, unknown>;
  for (const key of Object.keys(object)) object[key] = withoutBigints(object[key]);
  return object;
}
