/** `gymctl api <path>`: an authenticated GET of any path under the base URL, the body printed as received. */
import { operations } from '../api/client.js';
import type { Context } from '../context.js';

export async function runApi(ctx: Context, path: string): Promise<void> {
  const operation = operations.raw(path); // checked before anything is read or sent
  const { client } = await ctx.api();
  const response = await client.request(operation);
  ctx.io.out(response.rawData);
}
