/**
 * `gymctl schema <whoami|academy|family>`: the JSON Schema of a command's
 * `--json` output, generated from the schemas the client validates with.
 */
import * as z from 'zod/mini';
import { usageError } from '../../failures.js';
import { toJsonSchema } from '../../api/json-schema.js';
import { schemas } from '../../api/schemas.js';
import { type DocumentDeps, printDocument } from '../../output/document.js';

/** What each command prints with --json (academy: for one id; several give an array of these). */
export const OUTPUT_SCHEMAS = {
  whoami: () => schemas.apiKey(),
  academy: () => schemas.academy(),
  family: () => z.array(schemas.familyMember()),
} as const;

export type SchemaName = keyof typeof OUTPUT_SCHEMAS;

/** What --json prints with several ids, said in the schema itself. */
const DESCRIPTIONS: Partial<Record<SchemaName, string>> = {
  academy: 'One academy, for one id. With several ids, or -, --json prints an array of these, in argument order.',
  family: "The members linked to one member's family, for one id. With several ids, or -, --json prints an array of these arrays, in argument order.",
};

export function outputJsonSchema(name: string): Record<string, unknown> {
  if (!Object.hasOwn(OUTPUT_SCHEMAS, name)) {
    throw usageError(`no schema for ${JSON.stringify(name)}: expected one of ${Object.keys(OUTPUT_SCHEMAS).join(', ')}`);
  }
  return { ...toJsonSchema(OUTPUT_SCHEMAS[name as SchemaName]()), ...(DESCRIPTIONS[name as SchemaName] ? { description: DESCRIPTIONS[name as SchemaName] } : {}) };
}

export async function runSchema(f: DocumentDeps, name: string): Promise<void> {
  // A schema has no form for people: JSON, or what --jq makes of it.
  await printDocument(f, () => `${JSON.stringify(outputJsonSchema(name), null, 2)}\n`);
}
