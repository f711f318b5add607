/** The schemas as the library exports them: built (the CLI builds each on first use). */
import type * as z from 'zod/mini';
import { schemas } from '../operations/index.js';
import type * as Read from '../operations/index.js';
import type { IdMode, IdsAs } from './ids.js';

export { envelope, extraFields, type Id, type ErrorBody } from './schemas.js';
export type { IdMode, IdOf, IdsAs } from './ids.js';
export type { Address, Coordinates, PhotoUrls } from '../operations/index.js';

/** A user (spec §2.2), as the client hands it back: its id a number (`IdsAs<User, 'bigint'>` with `ids: 'bigint'`). */
export interface User extends IdsAs<Read.User, 'number'> {}
/** An API key (spec §2.1), as `getMe()` hands it back: each id a number (`ids: 'bigint'` makes each a bigint). */
export interface ApiKey extends IdsAs<Read.ApiKey, 'number'> {}
/** An academy (spec §2.3), as `getAcademy()` hands it back: each id a number (`ids: 'bigint'` makes each a bigint). */
export interface Academy extends IdsAs<Read.Academy, 'number'> {}
/** A family member entry (spec §2.6), as `listFamily()` hands it back: each id a number (`ids: 'bigint'` makes each a bigint). */
export interface FamilyMember extends IdsAs<Read.FamilyMember, 'number'> {}

/** A record as a client of mode M hands it back: its named type (`Academy`), or with every id a bigint. */
export type InMode<Named, Exact, M extends IdMode> = M extends 'number' ? Named : IdsAs<Exact, M>;

/** A record's schema, typed by what it parses from JSON.parse's output: ids as numbers (the client's own reading, exact past 2^53, may hand it bigints too, which it accepts). */
const asRead = <T, S extends z.ZodMiniType>(schema: S) => schema as S & z.ZodMiniType<T, unknown>;

export const userSchema = asRead<User, ReturnType<typeof schemas.user>>(schemas.user());
export const apiKeySchema = asRead<ApiKey, ReturnType<typeof schemas.apiKey>>(schemas.apiKey());
export const addressSchema = schemas.address();
export const coordinatesSchema = schemas.coordinates();
export const academySchema = asRead<Academy, ReturnType<typeof schemas.academy>>(schemas.academy());
export const photoUrlsSchema = schemas.photoUrls();
export const familyMemberSchema = asRead<FamilyMember, ReturnType<typeof schemas.familyMember>>(schemas.familyMember());
export const errorBodySchema = schemas.errorBody();
export const meResponseSchema = schemas.meResponse();
export const academyResponseSchema = schemas.academyResponse();
export const familyResponseSchema = schemas.familyResponse();
