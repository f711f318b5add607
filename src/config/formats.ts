/** Plain constants of the settings, kept apart from the schemas so that reading them loads no zod. */
export const OUTPUT_FORMATS = ['table', 'json', 'ndjson', 'csv'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** Names safe in a file, a shell and an environment variable. */
export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Where a profile's key is kept. */
export const KEY_STORES = ['config', 'keyring'] as const;
export type KeyStore = (typeof KEY_STORES)[number];
