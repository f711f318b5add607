/** `gymctl api <path>`: the definition; the handler (api/run.ts) loads when it runs. */
import { defineCommand, type FactoryRef } from './shared/define.js';

export const newCmdApi = (f: FactoryRef) =>
  defineCommand(
    {
      name: 'api',
      description: 'send an authenticated GET to any path under the base URL and print the body as received',
      arguments: [['<path>', 'a path under the base URL, such as /me or /academies/1']],
      options: [['-i, --include', 'print the HTTP status line and response headers before the body']],
      examples: ['gymctl api /academies/1 --sandbox', "gymctl api /members/501/family | jq '.data'", 'gymctl api -i /me --sandbox'],
    },
    async (path: string, options: { include?: boolean }) => (await import('./api/run.js')).runApi(f(), path, options),
  );
