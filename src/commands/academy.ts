/** `gymctl academy <academyId>`: one academy (GET /academies/{id}). */
import { operations } from '../api/client.js';
import { parseId } from '../api/ids.js';
import type { Context } from '../context.js';
import { printOne } from '../output/print.js';
import { academyColumns } from '../output/views.js';

export async function runAcademy(ctx: Context, academyIdText: string): Promise<void> {
  const academyId = parseId(academyIdText, 'academy id');
  const { client, settings } = await ctx.api();
  const response = await client.request(operations.academy(academyId));
  await printOne(ctx.io, settings.format.value, response, academyColumns);
}
