/** `gymctl doctor`: the definition; the handler (doctor/run.ts) loads when it runs. */
import { defineCommand, type FactoryRef } from './shared/define.js';

export const newCmdDoctor = (f: FactoryRef) =>
  defineCommand(
    {
      name: 'doctor',
      description: 'check the config file, profile, key, proxy, TLS, base URL, API and the cache folders, and say what to fix',
      options: [['--offline', 'skip the checks that use the network (TLS, the API)']],
      examples: ['gymctl doctor', 'gymctl doctor --offline', 'gymctl doctor --json | jq -r \'.[] | select(.status == "fail") | .fix\''],
    },
    async (options: { offline?: boolean }) => (await import('./doctor/run.js')).runDoctor(f(), options),
  );
