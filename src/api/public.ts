/**
 * The schemas as the library exports them: built (the CLI builds each on
 * first use, from schemas.ts). The single declaration stays schemas.ts.
 */
import { schemas } from './schemas.js';

export { envelope, type Id, type User, type ApiKey, type Address, type Coordinates, type Academy, type PhotoUrls, type FamilyMember, type ErrorBody } from './schemas.js';

export const userSchema = schemas.user();
export const apiKeySchema = schemas.apiKey();
export const addressSchema = schemas.address();
export const coordinatesSchema = schemas.coordinates();
export const academySchema = schemas.academy();
export const photoUrlsSchema = schemas.photoUrls();
export const familyMemberSchema = schemas.familyMember();
export const errorBodySchema = schemas.errorBody();
export const meResponseSchema = schemas.meResponse();
export const academyResponseSchema = schemas.academyResponse();
export const familyResponseSchema = schemas.familyResponse();
