/** `gymctl schema <command>`: the definition; the handler (schema/run.ts) loads when it runs. */
import { defineCommand, type FactoryRef } from './shared/define.js';

export const newCmdSchema = (f: FactoryRef) =>
  defineCommand(
    {
      name: 'schema',
      description: "print the JSON Schema of a command's --json output",
      arguments: [['<command>', 'whoami, academy or family']],
      examples: ['gymctl schema academy', 'gymctl schema family > family.schema.json'],
    },
    async (name: string) => (await import('./schema/run.js')).runSchema(f(), name),
  );
