/** `gymctl whoami`: the key in use, its scope and its owner (GET /me). */
import { operations } from '../api/client.js';
import type { GymClient } from '../api/client.js';
import type { OutputChoice } from '../output/choice.js';
import type { IO } from '../terminal/io.js';
import { createEmitter } from '../output/emit.js';
import { apiKeyView } from '../output/views.js';
import { defineCommand, type FactoryRef } from './shared/define.js';

/** What whoami uses: the streams, the output choice, and a client (the factory gives all three; a test, doubles). */
export interface WhoamiOptions {
  io: IO;
  output(): Promise<OutputChoice>;
  client(): Promise<{ client: GymClient }>;
}

export async function runWhoami(f: WhoamiOptions): Promise<void> {
  const emitter = await createEmitter(f.io, await f.output(), apiKeyView, 'one');
  const { client } = await f.client();
  const response = await client.request(operations.me());
  emitter.write({ data: response.data, raw: response.rawData });
  await emitter.end(false);
}

export const newCmdWhoami = (f: FactoryRef) =>
  defineCommand(
    {
      name: 'whoami',
      description: 'show the API key in use, the academies it is scoped to, and its owner',
      examples: ['gymctl whoami', "gymctl whoami --json | jq -r '.academyIds[]'", 'gymctl whoami --profile work'],
    },
    () => runWhoami(f()),
  );
