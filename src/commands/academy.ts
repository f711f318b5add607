/** `gymctl academy <academyId...>`: academies by id (GET /academies/{id} each), `-` reads ids from stdin. */
import { operations } from '../api/client.js';
import type { Id } from '../api/schemas.js';
import type { ApiSession, Factory } from '../factory.js';
import type { Shape } from '../output/emit.js';
import { academyView } from '../output/views.js';
import { parseConcurrency } from './shared/batch.js';
import { CONCURRENCY_OPTION, defineCommand, type FactoryRef } from './shared/define.js';
import { type BatchDeps, collectIds, fetchAll } from './shared/read.js';

export interface AcademyOptions {
  concurrency?: string;
}

/** What the academy commands use of the factory. */
export type AcademyDeps = BatchDeps & Pick<Factory, 'output'> & { client(maxConnections?: number): Promise<Pick<ApiSession, 'client'>> };

/** Fetches and prints academies; shared with `gymctl academies`. */
export async function printAcademies(f: AcademyDeps, session: Pick<ApiSession, 'client'>, ids: readonly Id[], shape: Shape, concurrency: number, emptyMessage?: string) {
  return fetchAll(f, {
    ids,
    shape,
    output: await f.output(),
    concurrency,
    view: academyView,
    send: (id, done) => session.client.requestWith(operations.academy(id), undefined, done),
    label: 'Fetching academies',
    ...(emptyMessage ? { emit: { emptyMessage } } : {}),
  });
}

export async function runAcademy(f: AcademyDeps, idTexts: readonly string[], options: AcademyOptions): Promise<void> {
  const concurrency = parseConcurrency(options.concurrency);
  const { ids, shape } = await collectIds(f, idTexts, 'academy id');
  const session = await f.client(concurrency);
  await printAcademies(f, session, ids, shape, concurrency);
}

export const newCmdAcademy = (f: FactoryRef) =>
  defineCommand(
    {
      name: 'academy',
      description: 'show academies by id, in argument order; - reads ids from stdin',
      arguments: [['<academyId...>', 'academy ids (positive whole numbers), or - to read them from stdin']],
      options: [CONCURRENCY_OPTION],
      examples: ['gymctl academy 1', 'gymctl academy 1 2 3 --json', 'seq 1 4 | gymctl academy - --format ndjson'],
    },
    (academyIds: string[], options: AcademyOptions) => runAcademy(f(), academyIds, options),
  );
