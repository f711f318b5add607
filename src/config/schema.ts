/** The stored config file's shape, declared once as zod schemas. */
import * as z from 'zod/mini';
import { MAX_RETRIES, MAX_TIMEOUT_MS } from '../api/defaults.js';

export const OUTPUT_FORMATS = ['table', 'json', 'ndjson', 'csv'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** Names safe in a file, a shell and an environment variable. */
export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export const profileSchema = z.looseObject({
  apiKey: z.optional(z.string()),
  baseUrl: z.optional(z.string()),
  format: z.optional(z.enum(OUTPUT_FORMATS)),
  timeout: z.optional(z.int().check(z.positive(), z.lte(MAX_TIMEOUT_MS))),
  retries: z.optional(z.int().check(z.gte(0), z.lte(MAX_RETRIES))),
});

export const configFileSchema = z.looseObject({
  profiles: z.optional(z.record(z.string(), profileSchema)),
});

export type Profile = z.infer<typeof profileSchema>;
export type ConfigFile = z.infer<typeof configFileSchema>;
