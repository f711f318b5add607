/** `gymctl auth login | status | logout`: the definitions; the handlers (auth/run.ts) load when one runs. */
import { defineCommand, defineGroup, type FactoryRef } from './shared/define.js';

const handlers = () => import('./auth/run.js');

export const newCmdAuth = (f: FactoryRef) =>
  defineGroup(
    {
      name: 'auth',
      description: 'store, check and forget the API key of a profile',
      examples: ['gymctl auth login --base-url https://api.example.com', 'gymctl auth status --all', 'gymctl auth logout --profile work'],
    },
    [
      defineCommand(
        {
          name: 'login',
          description: 'store an API key for the profile, after checking it with the API',
          options: [
            ['--with-key', 'read the key from stdin when it is piped in (at a terminal, the hidden prompt reads it)'],
            ['--keyring', 'keep the key in the system keyring instead of the config file (later logins keep it there)'],
            ['--no-keyring', 'keep the key in the config file (moves it out of the keyring)'],
          ],
          examples: [
            'gymctl auth login --base-url https://api.example.com',
            'gymctl auth login --keyring --with-key --base-url https://api.example.com < key.txt',
            'gymctl auth login --profile work --base-url https://api.example.com',
          ],
        },
        async (options: { withKey?: boolean; keyring?: boolean }) => (await handlers()).runLogin(f(), options),
      ),
      defineCommand(
        {
          name: 'status',
          description: "show the profile, base URL, masked key, where it comes from, and the key's owner",
          options: [['--all', 'every stored profile, each checked with its own key']],
          examples: ['gymctl auth status', 'gymctl auth status --all', 'gymctl auth status --json'],
        },
        async (options: { all?: boolean }) => (await handlers()).runStatus(f(), options),
      ),
      defineCommand(
        { name: 'logout', description: "forget the profile's stored API key (other settings stay)", examples: ['gymctl auth logout', 'gymctl auth logout --profile work'] },
        async () => (await handlers()).runLogout(f()),
      ),
    ],
  );
