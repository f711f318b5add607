/** `gymctl sandbox`: the definition; the handler (sandbox/run.ts) loads when it runs. */
import { FAULTS } from '../sandbox/faults.js';
import { annotate, defineCommand, type FactoryRef } from './shared/define.js';

export const newCmdSandbox = (f: FactoryRef) =>
  // Ctrl-C (or SIGTERM) is how the sandbox is meant to stop: it closes by itself, with a clean exit.
  annotate(
    defineCommand(
      {
        name: 'sandbox',
        description: 'serve the reference API with demo data on loopback until Ctrl-C',
        options: [
          ['--port <n>', 'port to listen on, 0 for any free one (default 4010)'],
          ['--host <host>', 'address to listen on (default 127.0.0.1)'],
          ['--data <file>', 'serve this JSON file of keys, academies, members and families instead of the demo data'],
          ['--fault <spec>', `misbehave, for testing: KIND[=VALUE][*TIMES], KIND one of ${Object.keys(FAULTS).join(', ')} (repeatable)`, 'repeatable'],
        ],
        examples: ['gymctl sandbox', 'gymctl sandbox --port 0 --data fixtures.json', "gymctl sandbox --fault 'unavailable*2' --fault 'slow=3000'"],
      },
      async (options: { port?: string; host?: string; data?: string; fault?: string[] }) => (await import('./sandbox/run.js')).runSandbox(f(), options),
    ),
    { handlesInterrupt: true },
  );
