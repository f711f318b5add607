/**
 * The parts the resources' zod schemas (spec §2, declared with their operations) are made of, and the shared error body.
 * Strict where the spec speaks (integer ids, boolean flags, arrays); tolerant where it is silent (§2.9): objects are
 * loose and every field may be null or absent. Each schema is built on first use: zod builds a schema when declared,
 * and a command that reads one resource need not pay for the others.
 */
import * as z from 'zod/mini';
import { once } from './once.js';

/** Absent (no key, as JSON cannot hold `undefined`), null or a value: `name?: string | null`, as types generated from the OpenAPI document say. */
export const maybe = <T extends z.core.$ZodType>(schema: T) => z.exactOptional(z.nullable(schema));

export const text = () => maybe(z.string());

export interface Stated {
  format?: 'email' | 'uri' | 'date-time' | 'uuid';
  pattern?: string;
  minimum?: number;
  maximum?: number;
}

/**
 * What the spec says of a value beyond its type: stated in the OpenAPI document and `gymctl schema`, never checked.
 * Its own registry, not zod's global one, so the MCP tools' output schemas do not carry it (they pass such values as they came).
 */
export const stated = z.registry<Stated>();

export const says = <T extends z.core.$ZodType>(schema: T, what: Stated): T => {
  stated.add(schema, what);
  return schema;
};

/** What a field or record means (spec §2), in zod's global registry, which every JSON Schema made of it reads. */
export const described = <T extends z.core.$ZodType>(schema: T, description: string): T => {
  z.globalRegistry.add(schema, { description });
  return schema;
};

/** Spec §2.2, §2.3: "e-mail address". */
export const email = () => says(text(), { format: 'email' });

/** Spec §2.3, §2.7: "URL of the … image". */
export const url = () => says(text(), { format: 'uri' });

/**
 * Identifiers, unbounded by the spec: numbers up to 2^53−1, bigints beyond, where a double would round them (json/exact.ts).
 * The client's typed methods then make each a number or a bigint, as its `ids` option says (`isIntegerUnion` finds them).
 */
export const identifier = () => z.union([z.int(), z.bigint()]);

/** An identifier as the client hands it back: a number, or a bigint beyond 2^53−1. */
export type Id = number | bigint;

/** The error body as the spec states it (§2.8, §7 rule 1); the client reads one more leniently (`errorBodyAsRead`). */
export const errorBody = once(() =>
  described(
    z.looseObject({
      message: described(z.string(), 'Human-readable error text'),
      // "a time-ordered UUID form": version 6 or 7 (RFC 9562), the RFC's variant; hex digits of either case.
      correlationId: described(
        says(z.string(), { format: 'uuid', pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[67][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$' }),
        'Identifier of the failed request, for tracing (a time-ordered UUID form)',
      ),
    }),
    'The body of every error response (spec §2.8).',
  ),
);

/** The error body as read: either field may be missing, since what answers is not always the API (a gateway's error page). */
export const errorBodyAsRead = once(() => {
  const { message, correlationId } = errorBody().shape;
  return z.looseObject({ message: maybe(message), correlationId: maybe(correlationId) });
});

/** Every successful response is `{ "data": … }` (spec §1, §4). */
export const envelope = <T extends z.core.$ZodType>(data: T) => z.looseObject({ data });

/**
 * A record's schema typed by its named type (`Academy`): the loose object's output without its index signature. The
 * same schema, which still keeps unknown fields (`extraFields`); test/unit/records.test.ts checks the two types agree.
 */
export const named = <T>(schema: () => z.ZodMiniType<T, unknown>): (() => z.ZodMiniType<T, unknown>) => schema;

/**
 * The fields the server sent beyond the spec, at the record's own level: kept, but not in the named types, so that a
 * misspelt field is a compile error. `extraFields(academy, academySchema)`; empty for anything not an object.
 */
export function extraFields(record: object | null | undefined, schema: z.core.$ZodObject): Record<string, unknown> {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return {};
  const known = schema._zod.def.shape;
  // fromEntries defines each key, `__proto__` too, as the record's own field.
  return Object.fromEntries(Object.entries(record).filter(([name]) => !Object.hasOwn(known, name)));
}

/** The body of every error response (spec §2.8). As the spec states it; the client reads one leniently (a gateway's may have neither field): see `GymApiError`'s `serverMessage` and `correlationId`. */
export type ErrorBody = {
  /** Human-readable error text */
  message: string;
  /** Identifier of the failed request, for tracing (a time-ordered UUID form) */
  correlationId: string;
};
