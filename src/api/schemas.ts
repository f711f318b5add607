/**
 * The API's resources (spec §2) as zod schemas: the single declaration of
 * every API shape. Types are inferred from these; nothing is written twice.
 *
 * Strict where the spec speaks: identifiers are integers, `academyIds` is an
 * array of integers, `primaryFamilyMember` is a boolean, the family list is an
 * array. Tolerant where it is silent (§2.9): objects are loose (unknown fields
 * are kept), and every string, number and nested object may be null or absent,
 * since requiredness and nullability are not specified.
 *
 * What the spec says of a value beyond its type (an e-mail address, a URL,
 * the form of a date-time, a range of degrees) is declared here too, beside
 * the field, but only the OpenAPI document states it (see `stated`): the
 * client does not check it, so a value not in the documented form is shown
 * as it came.
 *
 * Each schema is built on first use (`schemas.academy()`): zod builds a
 * schema when it is declared, and a command that reads one resource need
 * not pay for the others. The library exports them built (public.ts).
 */
import * as z from 'zod/mini';

/**
 * A field the spec types but does not say is required or non-null: absent,
 * null or a value. Absent means no key, not a key set to `undefined`, which
 * JSON cannot hold: the types say `name?: string | null`, as types generated
 * from the OpenAPI document do, so that the two assign to each other under
 * `exactOptionalPropertyTypes`.
 */
const maybe = <T extends z.core.$ZodType>(schema: T) => z.exactOptional(z.nullable(schema));

const text = () => maybe(z.string());

/** JSON Schema keywords for what the spec says of a value beyond its type. */
export interface Stated {
  format?: 'email' | 'uri' | 'date-time' | 'uuid';
  pattern?: string;
  minimum?: number;
  maximum?: number;
}

/**
 * What the spec says of each value beyond its type, by schema: the OpenAPI
 * document states it (openapi.ts reads this registry), parsing never sees
 * it. A registry of its own, not zod's global one, so that neither the
 * client nor `gymctl schema` (the schema of what gymctl prints, which is
 * what the client accepted) carries it.
 */
export const stated = z.registry<Stated>();

const says = <T extends z.core.$ZodType>(schema: T, what: Stated): T => {
  stated.add(schema, what);
  return schema;
};

/** Spec §2.2, §2.3: "e-mail address". */
const email = () => says(text(), { format: 'email' });

/** Spec §2.3, §2.7: "URL of the … image". */
const url = () => says(text(), { format: 'uri' });

/**
 * Identifiers (spec §2: `id`, `academyId`, `franchiseId`, `academyIds[]`):
 * integers the spec does not bound. Up to 2^53−1 they are numbers; beyond,
 * where a double would round them, bigints with every digit (the transport
 * parses them so: see json/exact.ts).
 */
const identifier = () => z.union([z.int(), z.bigint()]);

/** An identifier as the client hands it back: a number, or a bigint beyond 2^53−1. */
export type Id = number | bigint;

/** Builds once, on first call. */
const lazy = <T>(build: () => T): (() => T) => {
  let value: T | undefined;
  return () => (value ??= build());
};

/** 2.2 User: the owner of an API key. */
const user = lazy(() =>
  z.looseObject({
    id: identifier(),
    name: text(),
    email: email(),
  }),
);

/** 2.1 API key, returned by GET /me. */
const apiKey = lazy(() =>
  z.looseObject({
    id: identifier(),
    name: text(),
    academyIds: z.array(identifier()),
    user: maybe(user()),
  }),
);

/** 2.4 Postal address. */
const address = lazy(() =>
  z.looseObject({
    line1: text(),
    line2: text(),
    city: text(),
    state: text(),
    postalCode: text(),
    country: text(),
  }),
);

/** 2.5 Geographic position in decimal degrees. */
const coordinates = lazy(() =>
  z.looseObject({
    lat: says(maybe(z.number()), { minimum: -90, maximum: 90 }),
    lng: says(maybe(z.number()), { minimum: -180, maximum: 180 }),
  }),
);

/** 2.3 Academy, returned by GET /academies/{academyId}. */
const academy = lazy(() =>
  z.looseObject({
    id: identifier(),
    name: text(),
    // "a short upper-case alphabetic code": the spec names no standard and no length.
    currency: says(text(), { pattern: '^[A-Z]+$' }),
    email: email(),
    // "in international format with a leading plus sign": a plus, a country code (which never starts with 0), then digits and the usual separators.
    phone: says(text(), { pattern: '^\\+[1-9][0-9 ().-]*$' }),
    address: maybe(address()),
    coordinates: maybe(coordinates()),
    franchiseId: maybe(identifier()),
    logoUrl: url(),
    // "ISO 8601 date-time in UTC (form `YYYY-MM-DDThh:mm:ssZ`)": no fraction, no offset but Z.
    createdAt: says(text(), { format: 'date-time', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$' }),
  }),
);

/** 2.7 Photo URLs of a member. */
const photoUrls = lazy(() =>
  z.looseObject({
    thumbnail: url(),
    large: url(),
  }),
);

/** 2.6 Family member entry, an element of GET /members/{memberId}/family. */
const familyMember = lazy(() =>
  z.looseObject({
    id: identifier(),
    academyId: identifier(),
    firstName: text(),
    lastName: text(),
    photoUrl: maybe(photoUrls()),
    primaryFamilyMember: z.boolean(),
  }),
);

/** 2.8 Error body of every error response. */
const errorBody = lazy(() =>
  z.looseObject({
    message: text(),
    // "a time-ordered UUID form": version 6 or 7 (RFC 9562), the RFC's variant; hex digits of either case.
    correlationId: says(text(), { format: 'uuid', pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[67][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$' }),
  }),
);

/** Every successful response is `{ "data": … }` (spec §1, §4). */
export const envelope = <T extends z.core.$ZodType>(data: T) => z.looseObject({ data });

/** Every schema, each built on first call. */
export const schemas = {
  user,
  apiKey,
  address,
  coordinates,
  academy,
  photoUrls,
  familyMember,
  errorBody,
  meResponse: lazy(() => envelope(apiKey())),
  academyResponse: lazy(() => envelope(academy())),
  familyResponse: lazy(() => envelope(z.array(familyMember()))),
};

type Built<K extends keyof typeof schemas> = ReturnType<(typeof schemas)[K]>;

export type User = z.infer<Built<'user'>>;
export type ApiKey = z.infer<Built<'apiKey'>>;
export type Address = z.infer<Built<'address'>>;
export type Coordinates = z.infer<Built<'coordinates'>>;
export type Academy = z.infer<Built<'academy'>>;
export type PhotoUrls = z.infer<Built<'photoUrls'>>;
export type FamilyMember = z.infer<Built<'familyMember'>>;
export type ErrorBody = z.infer<Built<'errorBody'>>;
