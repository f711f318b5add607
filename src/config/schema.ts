/** The stored config file's shape, declared once as zod schemas. */
import * as z from 'zod/mini';
import { MAX_RETRIES, MAX_TIMEOUT_MS } from '../api/defaults.js';
import { KEY_STORES, OUTPUT_FORMATS } from './formats.js';

export const profileSchema = z.looseObject({
  apiKey: z.optional(z.string()),
  /** Where the key is kept: in this file (the default) or in the system keyring (`auth login --keyring`); later logins keep it there. */
  keyStore: z.optional(z.enum(KEY_STORES)),
  baseUrl: z.optional(z.string()),
  format: z.optional(z.enum(OUTPUT_FORMATS)),
  timeout: z.optional(z.int().check(z.positive(), z.lte(MAX_TIMEOUT_MS))),
  retries: z.optional(z.int().check(z.gte(0), z.lte(MAX_RETRIES))),
});

export const configFileSchema = z.looseObject({
  /** The profile used when neither --profile nor GYMCTL_PROFILE names one. */
  defaultProfile: z.optional(z.string()),
  profiles: z.optional(z.record(z.string(), profileSchema)),
});

export type Profile = z.infer<typeof profileSchema>;
export type ConfigFile = z.infer<typeof configFileSchema>;
