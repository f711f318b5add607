/** `gymctl whoami`: the key in use, its scope and its owner (GET /me). */
import { operations } from '../api/client.js';
import type { Context } from '../context.js';
import { createEmitter } from '../output/emit.js';
import { apiKeyView } from '../output/views.js';

export async function runWhoami(ctx: Context): Promise<void> {
  const { client, settings } = await ctx.api();
  const response = await client.request(operations.me());
  const emitter = await createEmitter(ctx.io, settings.format.value, apiKeyView, 'one');
  emitter.write({ data: response.data, raw: response.rawData });
  emitter.end(false);
}
