/** `gymctl academy <academyId...>`: academies by id (GET /academies/{id} each), `-` reads ids from stdin. */
import { operations } from '../api/client.js';
import type { Id } from '../api/schemas.js';
import { parseConcurrency } from './shared/batch.js';
import type { ApiSession, Context } from '../context.js';
import type { Shape } from '../output/emit.js';
import { academyView } from '../output/views.js';
import { collectIds, fetchAll } from './shared/read.js';

export interface AcademyOptions {
  concurrency?: string;
}

/** Fetches and prints academies; shared with `gymctl academies`. */
export async function printAcademies(ctx: Context, session: ApiSession, ids: readonly Id[], shape: Shape, concurrency: number, emptyMessage?: string) {
  return fetchAll(ctx, {
    ids,
    shape,
    output: await ctx.output(),
    concurrency,
    view: academyView,
    request: (id) => session.client.request(operations.academy(id)),
    label: 'Fetching academies',
    ...(emptyMessage ? { emit: { emptyMessage } } : {}),
  });
}

export async function runAcademy(ctx: Context, idTexts: readonly string[], options: AcademyOptions): Promise<void> {
  const concurrency = parseConcurrency(options.concurrency);
  const { ids, shape } = await collectIds(ctx, idTexts, 'academy id');
  const session = await ctx.api(concurrency);
  await printAcademies(ctx, session, ids, shape, concurrency);
}
