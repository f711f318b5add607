/** `gymctl academies`: every academy the key is scoped to (GET /me, then each academy in order). */
import { parseConcurrency } from './shared/batch.js';
import type { Context } from '../context.js';
import { academyView } from '../output/views.js';
import { printAcademies, type AcademyOptions } from './academy.js';
import { checkColumns } from './shared/read.js';

export async function runAcademies(ctx: Context, options: AcademyOptions): Promise<void> {
  const concurrency = parseConcurrency(options.concurrency);
  await checkColumns(ctx, academyView);
  const session = await ctx.api(concurrency);
  const me = await session.client.getMe();
  await printAcademies(ctx, session, me.academyIds, 'many', concurrency, `The key "${me.name ?? me.id}" is scoped to no academies.`);
}
