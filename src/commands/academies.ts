/** `gymctl academies`: every academy the key is scoped to (GET /me, then each academy in order). */
import { academyView } from '../output/views.js';
import { type AcademyDeps, type AcademyOptions, printAcademies } from './academy.js';
import { parseConcurrency } from './shared/batch.js';
import { CONCURRENCY_OPTION, IGNORE_NOT_FOUND_OPTION, defineCommand, type FactoryRef } from './shared/define.js';
import { checkColumns } from './shared/read.js';

export async function runAcademies(f: AcademyDeps, options: AcademyOptions): Promise<void> {
  const concurrency = parseConcurrency(options.concurrency);
  await checkColumns(f, academyView);
  const session = await f.client(concurrency);
  const me = await session.client.getMe();
  await printAcademies(f, session, me.academyIds, 'many', {
    fromServer: true,
    concurrency,
    ignoreNotFound: options.ignoreNotFound,
    emptyMessage: `The key "${me.name ?? me.id}" is scoped to no academies.`,
  });
}

export const newCmdAcademies = (f: FactoryRef) =>
  defineCommand(
    {
      name: 'academies',
      description: 'show every academy the key is scoped to, in the order of its academyIds',
      options: [CONCURRENCY_OPTION, IGNORE_NOT_FOUND_OPTION],
      examples: ['gymctl academies', 'gymctl academies --format csv > academies.csv', "gymctl academies --json | jq -r '.[].name'"],
    },
    (options: AcademyOptions) => runAcademies(f(), options),
  );
