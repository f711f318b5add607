/** `gymctl config list | get | set | unset | path`: the definitions; the handlers (config/run.ts) load when one runs. */
import { defineCommand, defineGroup, type FactoryRef } from './shared/define.js';

const handlers = () => import('./config/run.js');
const KEY: readonly [string, string] = ['<key>', 'base-url, format, timeout, retries, key-store, default-profile, accessible or csv-bom'];

export const newCmdConfig = (f: FactoryRef) =>
  defineGroup(
    {
      name: 'config',
      description: 'read and change settings of the profile (base-url, format, timeout, retries, key-store) and the default profile',
      examples: ['gymctl config list', 'gymctl config set format json', 'gymctl config set default-profile work'],
    },
    [
      defineCommand(
        { name: 'list', description: 'print every setting', examples: ['gymctl config list', 'gymctl config list --json', 'gymctl config list --profile work'] },
        async () => (await handlers()).runConfigList(f()),
      ),
      defineCommand(
        { name: 'get', description: 'print one setting', arguments: [KEY], examples: ['gymctl config get base-url', 'gymctl config get format --profile work'] },
        async (key: string) => (await handlers()).runConfigGet(f(), key),
      ),
      defineCommand(
        {
          name: 'set',
          description: 'change one setting',
          arguments: [KEY, ['<value>', 'the new value']],
          examples: ['gymctl config set base-url https://api.example.com', 'gymctl config set timeout 10s', 'gymctl config set default-profile work'],
        },
        async (key: string, value: string, options: { allowHttp?: boolean }) => (await handlers()).runConfigSet(f(), key, value, options),
      ),
      defineCommand(
        {
          name: 'unset',
          description: 'remove one setting, so its default applies',
          arguments: [KEY],
          examples: ['gymctl config unset format', 'gymctl config unset default-profile'],
        },
        async (key: string) => (await handlers()).runConfigUnset(f(), key),
      ),
      defineCommand(
        {
          name: 'path',
          description: 'print the path of the config file in use',
          examples: ['gymctl config path', 'chmod 600 "$(gymctl config path)"'],
        },
        async () => (await handlers()).runConfigPath(f()),
      ),
    ],
  );
