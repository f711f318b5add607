/** `gymctl api <path>`: the definition and its handler (api/run.ts), in the main file with the read commands: scripts call it in loops. */
import { type ApiOptions, runApi } from './api/run.js';
import { defineCommand, type FactoryRef } from './shared/define.js';

export const newCmdApi = (f: FactoryRef) =>
  defineCommand(
    {
      name: 'api',
      description: 'send an authenticated GET to any path under the base URL and print the body as received',
      arguments: [['<path>', 'a path under the base URL, such as /me or /academies/1']],
      options: [
        ['-i, --include', 'print the HTTP status line and response headers before the body'],
        ['-H, --header <header>', "add a request header, 'Name: value' (again for more); not the key's, Host or the connection's", 'repeatable'],
        ['-X, --method <method>', 'GET, the only method of the read-only API'],
      ],
      examples: ['gymctl api /academies/1 --sandbox', "gymctl api /academies/2 | jq '.data.name'", 'gymctl api -i /me --sandbox'],
    },
    (path: string, options: ApiOptions) => runApi(f(), path, options),
  );
