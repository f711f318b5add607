/** `gymctl whoami`: the key in use, its scope and its owner (GET /me). */
import { operations } from '../api/client.js';
import type { Context } from '../context.js';
import { createEmitter } from '../output/emit.js';
import { apiKeyView } from '../output/views.js';

export async function runWhoami(ctx: Context): Promise<void> {
  const emitter = await createEmitter(ctx.io, await ctx.output(), apiKeyView, 'one');
  const { client } = await ctx.api();
  const response = await client.request(operations.me());
  emitter.write({ data: response.data, raw: response.rawData });
  emitter.end(false);
}
