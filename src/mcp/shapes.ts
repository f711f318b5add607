/**
 * The MCP tools' shapes, from the operations' schemas. Ids are strings of digits in and out: they are 64-bit, and a
 * client parsing JSON into doubles would round any beyond 2^53−1. All else is the API's data as sent.
 */
import * as z from 'zod/mini';
import { isValidId } from '../api/ids.js';
import type { Id } from '../api/schemas.js';
import { isIntegerUnion } from '../api/validation.js';
import { parseId } from '../commands/shared/ids.js';
import { usageError } from '../failures.js';

type Schema = z.core.$ZodType;
type Def = { type: string; innerType?: Schema; shape?: Record<string, Schema>; element?: Schema; catchall?: Schema };

const defOf = (schema: Schema) => schema._zod.def as unknown as Def;

/** An identifier as a tool hands it back: its decimal digits (the API's own, so 0 or negative are not refused here). */
export const idText = () => z.string().check(z.regex(/^-?[0-9]+$/));

/** `made` with `schema`'s registry entry (a clone has none), but its `id`, which names one schema only. */
function sameMeta(schema: Schema, made: Schema): Schema {
  const { id: _id, ...meta } = z.globalRegistry.get(schema) ?? {};
  if (Object.keys(meta).length > 0) z.globalRegistry.add(made, meta);
  return made;
}

/** `schema` rebuilt with each identifier an `idText` (the declaration's is left as it is). */
export function withTextIds(schema: Schema): Schema {
  if (isIntegerUnion(schema)) return sameMeta(schema, idText());
  const def = defOf(schema);
  const rebuilt = (change: Partial<Def>) => sameMeta(schema, z.core.clone(schema, { ...schema._zod.def, ...change } as never));
  switch (def.type) {
    case 'optional':
    case 'nullable':
      return rebuilt({ innerType: withTextIds(def.innerType!) });
    case 'array':
      return rebuilt({ element: withTextIds(def.element!) });
    case 'object':
      return rebuilt({ shape: Object.fromEntries(Object.entries(def.shape!).map(([key, field]) => [key, withTextIds(field)])) });
    default:
      return schema;
  }
}

/** `value` with each leaf (neither array nor object) through `leaf`, and each key through `key`. */
export function mapDeep(value: unknown, leaf: (value: unknown) => unknown, key = (name: string) => name): unknown {
  if (Array.isArray(value)) return value.map((item) => mapDeep(item, leaf, key));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([name, field]) => [key(name), mapDeep(field, leaf, key)]));
  return leaf(value);
}

/** A value the schema does not describe (a field it leaves open): any bigint in it becomes its digits, since JSON.stringify cannot write one. */
const bigintsAsText = (value: unknown) => mapDeep(value, (leaf) => (typeof leaf === 'bigint' ? String(leaf) : leaf));

/** `value`, which passed `schema`, with every identifier as its digits: what passes `withTextIds(schema)`. */
export function idsAsText(schema: Schema, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  if (isIntegerUnion(schema)) return typeof value === 'number' || typeof value === 'bigint' ? String(value) : value;
  const def = defOf(schema);
  switch (def.type) {
    case 'optional':
    case 'nullable':
      return idsAsText(def.innerType!, value);
    case 'array':
      return Array.isArray(value) ? value.map((item) => idsAsText(def.element!, item)) : bigintsAsText(value);
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return bigintsAsText(value);
      const shape = def.shape!;
      return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, Object.hasOwn(shape, key) ? idsAsText(shape[key]!, field) : bigintsAsText(field)]));
    }
    default:
      return bigintsAsText(value);
  }
}

/** The largest id a JSON number can carry exactly; beyond it, ids are sent as strings. */
const MAX_NUMBER_ID = Number.MAX_SAFE_INTEGER;

/**
 * A tool's arguments: the JSON Schema a client reads says what each takes, while the parser takes any value, so the
 * handler refuses a bad id in the CLI's words (`checkIdInput`), never as the SDK's bare message.
 */
export function argumentsOf(fields: Record<string, { what: string; found?: string | undefined; max?: number }>): Schema {
  const shape = Object.fromEntries(
    Object.entries(fields).map(([name, { what, found, max }]) => {
      const where = found ? ` ${found}` : '';
      const one = {
        anyOf: [
          { type: 'string', pattern: '^[1-9][0-9]{0,18}$', description: 'As a string of digits: any id up to 2^63−1' },
          { type: 'integer', minimum: 1, maximum: MAX_NUMBER_ID, description: 'As a number: up to 2^53−1' },
        ],
        description: `The ${what}: a positive whole number, best sent as a string ("42").`,
      };
      const json =
        max === undefined
          ? { ...one, description: `${one.description}${where}` }
          : { type: 'array', items: one, minItems: 1, maxItems: max, description: `1 to ${max} ${what}s, each a positive whole number, best sent as a string.${where}` };
      return [name, z.optional(z.unknown()).register(z.globalRegistry, json)];
    }),
  );
  return z.object(shape).register(z.globalRegistry, { required: Object.keys(fields) });
}

/** An id given to a tool, checked as the CLI checks a typed one; a JSON number beyond 2^53−1, which JSON parsers round, is refused. */
export function checkIdInput(value: unknown, what: string): Id {
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value) && isValidId(value)) return value;
    if (Number.isInteger(value) && value > MAX_NUMBER_ID)
      throw usageError(`${what} ${String(value)} is beyond 2^53−1 as a JSON number, which rounds it: send it as a string of digits`);
    throw usageError(`invalid ${what} ${JSON.stringify(value)} (expected a positive whole number)`);
  }
  if (value === undefined) throw usageError(`missing ${what} (expected a positive whole number, as a string of digits)`);
  if (typeof value !== 'string') throw usageError(`invalid ${what} (expected a positive whole number, as a string of digits)`);
  return parseId(value, what);
}
