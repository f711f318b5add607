/** The stored config file's shape, declared once as zod schemas, built on first use (when there is a file to check). */
import * as z from 'zod/mini';
import { once } from '../api/once.js';
import { MAX_RETRIES, MAX_TIMEOUT_MS } from '../api/defaults.js';
import { KEY_STORES, OUTPUT_FORMATS } from './formats.js';

const buildProfileSchema = () =>
  z.looseObject({
    apiKey: z.optional(z.string()),
    /** Where the key is kept: in this file (the default) or in the system keyring (`auth login --keyring`); later logins keep it there. */
    keyStore: z.optional(z.enum(KEY_STORES)),
    baseUrl: z.optional(z.string()),
    format: z.optional(z.enum(OUTPUT_FORMATS)),
    timeout: z.optional(z.int().check(z.positive(), z.lte(MAX_TIMEOUT_MS))),
    retries: z.optional(z.int().check(z.gte(0), z.lte(MAX_RETRIES))),
  });

const buildConfigFileSchema = () =>
  z.looseObject({
    /** The profile used when neither --profile nor GYMCTL_PROFILE names one. */
    defaultProfile: z.optional(z.string()),
    /** Accessible output for screen readers (see terminal/io.ts). */
    accessible: z.optional(z.boolean()),
    /** CSV output starts with a UTF-8 byte-order mark (see output/emit.ts). */
    csvBom: z.optional(z.boolean()),
    profiles: z.optional(z.record(z.string(), buildProfileSchema())),
  });

export const configFileSchema = once(buildConfigFileSchema);

export type Profile = z.infer<ReturnType<typeof buildProfileSchema>>;
export type ConfigFile = z.infer<ReturnType<typeof buildConfigFileSchema>>;
