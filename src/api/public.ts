/** The schemas as the library exports them: built (the CLI builds each on first use). */
import { schemas } from '../operations/index.js';

export { envelope, extraFields, type Id, type ErrorBody } from './schemas.js';
export type { User, ApiKey, Address, Coordinates, Academy, PhotoUrls, FamilyMember } from '../operations/index.js';

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
