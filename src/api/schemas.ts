/**
 * The API's resources (spec §2) as zod schemas: the single declaration of
 * every API shape. Types are inferred from these; nothing is written twice.
 *
 * Strict where the spec speaks: identifiers are integers, `academyIds` is an
 * array of integers, `primaryFamilyMember` is a boolean, the family list is an
 * array. Tolerant where it is silent (§2.9): objects are loose (unknown fields
 * are kept), and every string, number and nested object may be null or absent,
 * since requiredness and nullability are not specified. Date-times and codes
 * are plain strings: a value not in the documented form is shown as it came.
 */
import * as z from 'zod/mini';

/** A field the spec types but does not say is required or non-null. */
const maybe = <T extends z.core.$ZodType>(schema: T) => z.optional(z.nullable(schema));

const text = () => maybe(z.string());

/**
 * Identifiers (spec §2: `id`, `academyId`, `franchiseId`, `academyIds[]`):
 * integers the spec does not bound. Up to 2^53−1 they are numbers; beyond,
 * where a double would round them, bigints with every digit (the transport
 * parses them so: see json/exact.ts).
 */
const identifier = () => z.union([z.int(), z.bigint()]);

/** An identifier as the client hands it back: a number, or a bigint beyond 2^53−1. */
export type Id = number | bigint;

/** 2.2 User: the owner of an API key. */
export const userSchema = z.looseObject({
  id: identifier(),
  name: text(),
  email: text(),
});

/** 2.1 API key, returned by GET /me. */
export const apiKeySchema = z.looseObject({
  id: identifier(),
  name: text(),
  academyIds: z.array(identifier()),
  user: maybe(userSchema),
});

/** 2.4 Postal address. */
export const addressSchema = z.looseObject({
  line1: text(),
  line2: text(),
  city: text(),
  state: text(),
  postalCode: text(),
  country: text(),
});

/** 2.5 Geographic position in decimal degrees. */
export const coordinatesSchema = z.looseObject({
  lat: maybe(z.number()),
  lng: maybe(z.number()),
});

/** 2.3 Academy, returned by GET /academies/{academyId}. */
export const academySchema = z.looseObject({
  id: identifier(),
  name: text(),
  currency: text(),
  email: text(),
  phone: text(),
  address: maybe(addressSchema),
  coordinates: maybe(coordinatesSchema),
  franchiseId: maybe(identifier()),
  logoUrl: text(),
  createdAt: text(),
});

/** 2.7 Photo URLs of a member. */
export const photoUrlsSchema = z.looseObject({
  thumbnail: text(),
  large: text(),
});

/** 2.6 Family member entry, an element of GET /members/{memberId}/family. */
export const familyMemberSchema = z.looseObject({
  id: identifier(),
  academyId: identifier(),
  firstName: text(),
  lastName: text(),
  photoUrl: maybe(photoUrlsSchema),
  primaryFamilyMember: z.boolean(),
});

/** 2.8 Error body of every error response. */
export const errorBodySchema = z.looseObject({
  message: text(),
  correlationId: text(),
});

/** Every successful response is `{ "data": … }` (spec §1, §4). */
export const envelope = <T extends z.core.$ZodType>(data: T) => z.looseObject({ data });

export const meResponseSchema = envelope(apiKeySchema);
export const academyResponseSchema = envelope(academySchema);
export const familyResponseSchema = envelope(z.array(familyMemberSchema));

export type User = z.infer<typeof userSchema>;
export type ApiKey = z.infer<typeof apiKeySchema>;
export type Address = z.infer<typeof addressSchema>;
export type Coordinates = z.infer<typeof coordinatesSchema>;
export type Academy = z.infer<typeof academySchema>;
export type PhotoUrls = z.infer<typeof photoUrlsSchema>;
export type FamilyMember = z.infer<typeof familyMemberSchema>;
export type ErrorBody = z.infer<typeof errorBodySchema>;
