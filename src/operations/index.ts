/** Every operation gymctl knows, in help's order; adding one is a declaration beside these (CONTRIBUTING.md). */
import { errorBody } from '../api/schemas.js';
import { academy, schemas as academySchemas } from './academy.js';
import { family, schemas as familySchemas } from './family.js';
import { whoami, schemas as whoamiSchemas } from './whoami.js';

export const OPERATIONS = [whoami, academy, family] as const;

export { whoami, academy, family };

export type Operations = typeof OPERATIONS;

/** Every schema of the API, each built on first call. */
export const schemas = { ...whoamiSchemas, ...academySchemas, ...familySchemas, errorBody };

export type * from './academy.js';
export type * from './family.js';
export type * from './whoami.js';
