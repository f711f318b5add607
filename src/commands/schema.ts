/** `gymctl schema <command>`: the definition; the handler (schema/run.ts) loads when it runs. */
import { listed } from '../output/listed.js';
import { OPERATIONS } from '../operations/index.js';
import { defineCommand, type FactoryRef } from './shared/define.js';

const NAMES = OPERATIONS.map((declaration) => declaration.name);

export const newCmdSchema = (f: FactoryRef) =>
  defineCommand(
    {
      name: 'schema',
      description: "print the JSON Schema of a command's --json output for one id (with several, an array of these): the OpenAPI document's schema",
      arguments: [['<command>', listed(NAMES, 'or')]],
      examples: OPERATIONS.filter((declaration) => declaration.param)
        .slice(0, 2)
        .map(({ name }, i) => `gymctl schema ${name}${i === 1 ? ` > ${name}.schema.json` : ''}`),
    },
    async (name: string) => (await import('./schema/run.js')).runSchema(f(), name),
  );
