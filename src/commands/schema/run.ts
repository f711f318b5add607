/**
 * `gymctl schema <command>`: the JSON Schema of a command's `--json` output for one id, the OpenAPI component as
 * dist/openapi.json states it (an array of them for a list answer). With several ids, --json prints an array of these.
 */
import { componentOf } from '../../api/openapi.js';
import { usageError } from '../../failures.js';
import { OPERATIONS } from '../../operations/index.js';
import { type DocumentDeps, printDocument } from '../../output/document.js';

const DIALECT = 'https://json-schema.org/draft/2020-12/schema';

export function outputJsonSchema(name: string, operations = OPERATIONS): Record<string, unknown> {
  const declaration = operations.find((d) => d.name === name);
  if (!declaration) throw usageError(`no schema for ${JSON.stringify(name)}: expected one of ${operations.map((d) => d.name).join(', ')}`);
  const record = componentOf(declaration);
  if (!declaration.list) return { $schema: DIALECT, ...record };
  return { $schema: DIALECT, description: `${declaration.openapi.ok}: an array of ${declaration.openapi.component}`, type: 'array', items: record };
}

export async function runSchema(f: DocumentDeps, name: string): Promise<void> {
  await printDocument(f, () => `${JSON.stringify(outputJsonSchema(name), null, 2)}\n`);
}
