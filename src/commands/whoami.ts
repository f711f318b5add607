/** `gymctl whoami`: the key in use, its scope and its owner (GET /me). */
import { operations } from '../api/client.js';
import type { Context } from '../context.js';
import { printOne } from '../output/print.js';
import { apiKeyColumns } from '../output/views.js';

export async function runWhoami(ctx: Context): Promise<void> {
  const { client, settings } = await ctx.api();
  const response = await client.request(operations.me());
  await printOne(ctx.io, settings.format.value, response, apiKeyColumns);
}
