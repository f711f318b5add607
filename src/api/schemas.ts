/**
 * What the API's resources (spec §2) are made of, as zod schemas: each
 * resource's own schema is declared with its operation (operations/*.ts),
 * from these parts, and the error body every operation shares is here.
 * The types of the records are named beside their schemas, each field with
 * its meaning as a comment, for editors to show: each is checked to be the
 * schema's output, and each comment the schema's description (see `named`).
 *
 * Strict where the spec speaks: identifiers are integers, `academyIds` is an
 * array of integers, `primaryFamilyMember` is a boolean, a list answer is an
 * array. Tolerant where it is silent (§2.9): objects are loose (unknown fields
 * are kept), and every string, number and nested object may be null or absent,
 * since requiredness and nullability are not specified.
 *
 * What the spec says of a value beyond its type (an e-mail address, a URL,
 * the form of a date-time, a range of degrees) is declared here too, beside
 * the field, but only the OpenAPI document states it (see `stated`): the
 * client does not check it, so a value not in the documented form is shown
 * as it came. What each field means is declared beside it too
 * (`described`), and every JSON Schema made of these says it.
 *
 * Each schema is built on first use (`schemas.academy()`): zod builds a
 * schema when it is declared, and a command that reads one resource need
 * not pay for the others. The library exports them built (public.ts).
 */
import * as z from 'zod/mini';
import { once } from './once.js';

/**
 * A field the spec types but does not say is required or non-null: absent,
 * null or a value. Absent means no key, not a key set to `undefined`, which
 * JSON cannot hold: the types say `name?: string | null`, as types generated
 * from the OpenAPI document do, so that the two assign to each other under
 * `exactOptionalPropertyTypes`.
 */
export const maybe = <T extends z.core.$ZodType>(schema: T) => z.exactOptional(z.nullable(schema));

export const text = () => maybe(z.string());

/** JSON Schema keywords for what the spec says of a value beyond its type. */
export interface Stated {
  format?: 'email' | 'uri' | 'date-time' | 'uuid';
  pattern?: string;
  minimum?: number;
  maximum?: number;
}

/**
 * What the spec says of each value beyond its type, by schema: the OpenAPI
 * document and `gymctl schema` state it (json-schema.ts reads this
 * registry), parsing never sees it. A registry of its own, not zod's global
 * one, so that no JSON Schema made with zod's defaults carries it: not the
 * MCP tools' output schemas (the SDK makes them so), whose records pass
 * through a value not in the stated form as it came.
 */
export const stated = z.registry<Stated>();

export const says = <T extends z.core.$ZodType>(schema: T, what: Stated): T => {
  stated.add(schema, what);
  return schema;
};

/**
 * What a field or a record means (spec §2's "Meaning"), said once, beside
 * it: in zod's global registry, which every JSON Schema made of the schema
 * reads (the OpenAPI document, `gymctl schema`, and the MCP tools' output
 * schemas, which the SDK makes with zod's converter). Metadata only: it is
 * registered when the schema is built (once), and parsing never reads it.
 */
export const described = <T extends z.core.$ZodType>(schema: T, description: string): T => {
  z.globalRegistry.add(schema, { description });
  return schema;
};

/** Spec §2.2, §2.3: "e-mail address". */
export const email = () => says(text(), { format: 'email' });

/** Spec §2.3, §2.7: "URL of the … image". */
export const url = () => says(text(), { format: 'uri' });

/**
 * Identifiers (spec §2: `id`, `academyId`, `franchiseId`, `academyIds[]`):
 * integers the spec does not bound. Up to 2^53−1 they are numbers; beyond,
 * where a double would round them, bigints with every digit (the transport
 * parses them so: see json/exact.ts).
 */
export const identifier = () => z.union([z.int(), z.bigint()]);

/** An identifier as the client hands it back: a number, or a bigint beyond 2^53−1. */
export type Id = number | bigint;

/**
 * 2.8 Error body of every error response, as the spec states it: both
 * fields are strings (§2.8), and every error has them (§1, §7 rule 1). The
 * OpenAPI document's component, the exported `errorBodySchema`, and the
 * exported type `ErrorBody`. The client reads an error body more leniently
 * (`errorBodyAsRead`).
 */
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

/**
 * The error body as the client reads it from an answer: each field may be
 * absent or null, whatever the spec says, since what answers is not always
 * the API (a gateway's error page has neither field). The client still
 * reports the status, takes a missing `correlationId` from the
 * `X-Correlation-Id` or `X-Request-Id` header, and says nothing of a
 * missing `message`. Internal: not exported, not in the document.
 */
export const errorBodyAsRead = once(() => {
  const { message, correlationId } = errorBody().shape;
  return z.looseObject({ message: maybe(message), correlationId: maybe(correlationId) });
});

/** Every successful response is `{ "data": … }` (spec §1, §4). */
export const envelope = <T extends z.core.$ZodType>(data: T) => z.looseObject({ data });

/**
 * A record's schema as the client's methods, the views and the sandbox's
 * answers type it: its output is the record's named type (`Academy`), the
 * schema's own output without the index signature of a loose object. The
 * schema is the same object, and still keeps unknown fields when it parses
 * (see `extraFields`). test/unit/records.test.ts checks that each named
 * type is the schema's output, both ways, and that each field's comment is
 * the field's description.
 */
export const named = <T>(schema: () => z.ZodMiniType<T, unknown>): (() => z.ZodMiniType<T, unknown>) => schema;

/**
 * The fields of a record that its schema does not name: what the server
 * sent beyond the spec, as it sent it. The client keeps them (every record
 * is read as a loose object), but the named types do not show them, so
 * that a misspelt field is a compile error: `extraFields(academy,
 * academySchema)`. Only the record's own level: a nested record's are
 * `extraFields(academy.address, addressSchema)`. Empty for anything that is
 * not an object.
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
