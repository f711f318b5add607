/** `gymctl academy <academyId...>`: academies by id (GET /academies/{id} each), `-` reads ids from stdin. */
import { operations } from '../api/client.js';
import type { Id } from '../api/schemas.js';
import type { ApiSession, Factory } from '../factory.js';
import type { Shape } from '../output/emit.js';
import { academyView } from '../output/views.js';
import { GymApiError, GymctlError } from '../api/errors.js';
import { isValidId } from '../api/ids.js';
import { usageError } from '../failures.js';
import { parseConcurrency } from './shared/batch.js';
import { CONCURRENCY_OPTION, IGNORE_NOT_FOUND_OPTION, defineCommand, type FactoryRef } from './shared/define.js';
import { type BatchDeps, collectIds, fetchAll } from './shared/read.js';

export interface AcademyOptions {
  concurrency?: string;
  ignoreNotFound?: boolean;
}

/** What the academy commands use of the factory. */
export type AcademyDeps = BatchDeps & Pick<Factory, 'output'> & { client(maxConnections?: number): Promise<Pick<ApiSession, 'client'>> };

/** Fetches and prints academies; shared with `gymctl academies`. */
export async function printAcademies(
  f: AcademyDeps,
  session: Pick<ApiSession, 'client'>,
  ids: readonly Id[],
  shape: Shape,
  options: { concurrency: number; ignoreNotFound?: boolean | undefined; emptyMessage?: string; fromServer?: boolean },
) {
  const { concurrency, emptyMessage } = options;
  // Ids the server listed (GET /me) may be integers gymctl never sends (0, or beyond 2^63−1): that id fails as the answer's fault, not as a usage error.
  const unsendable = (id: Id) =>
    new GymApiError('invalid_response', `the API key lists academy id ${String(id)}, which gymctl cannot request (ids it sends are 1 to 2^63−1)`, { id });
  return fetchAll(f, {
    ids,
    shape,
    output: await f.output(),
    concurrency,
    view: academyView,
    send: (id, done) => (options.fromServer && !isValidId(id) ? done(unsendable(id)) : session.client.requestWith(operations.academy(id), undefined, done)),
    label: 'Fetching academies',
    ignoreNotFound: options.ignoreNotFound === true,
    ...(emptyMessage ? { emit: { emptyMessage } } : {}),
  });
}

/**
 * No id given: at a terminal (stdin and stdout both), a list of the key's
 * academies to choose from, and the command that does the same said on
 * stderr, for scripts; elsewhere, or with GYMCTL_NO_INPUT set, the usage
 * error it always was.
 */
async function chooseAcademy(f: AcademyDeps & Partial<Pick<Factory, 'flags' | 'signal'>>): Promise<string> {
  if (!f.io.stdinIsTTY || !f.io.stdoutIsTTY || f.env.GYMCTL_NO_INPUT) {
    throw usageError("missing required argument 'academyId'; usage: gymctl academy [options] <academyId...>");
  }
  const { client } = await f.client();
  const me = await client.getMe(f.signal);
  if (me.academyIds.length === 0) throw new GymctlError('not_found', 'the API key is scoped to no academies, so there is none to choose');
  const academies = await Promise.all(
    me.academyIds.map((id) =>
      client.getAcademy(id, f.signal).then(
        (academy) => ({ value: String(id), name: `${academy.name ?? '(no name)'} (id ${id})` }),
        () => ({ value: String(id), name: `id ${id}` }),
      ),
    ),
  );
  const { pick } = await import('../terminal/picker.js');
  const id = await pick(f.io, 'Which academy? (type to filter)', academies, f.signal);
  const flags = f.flags ?? {};
  const same = [`gymctl academy ${id}`, flags.sandbox ? '--sandbox' : '', flags.profile ? `--profile ${flags.profile}` : '', flags.baseUrl ? `--base-url ${flags.baseUrl}` : ''];
  f.io.err(`${same.filter(Boolean).join(' ')}\n`);
  return id;
}

export async function runAcademy(f: AcademyDeps & Partial<Pick<Factory, 'flags' | 'signal'>>, idTexts: readonly string[], options: AcademyOptions): Promise<void> {
  const concurrency = parseConcurrency(options.concurrency);
  const given = idTexts.length > 0 ? idTexts : [await chooseAcademy(f)];
  const { ids, shape } = await collectIds(f, given, 'academy id');
  const session = await f.client(concurrency);
  await printAcademies(f, session, ids, shape, { concurrency, ignoreNotFound: options.ignoreNotFound });
}

export const newCmdAcademy = (f: FactoryRef) =>
  defineCommand(
    {
      name: 'academy',
      description: 'show academies by id, in argument order; - reads ids from stdin',
      // Optional to the parser: with none, at a terminal, a list to choose from (see chooseAcademy).
      arguments: [['[academyId...]', 'academy ids (positive whole numbers), or - to read them from stdin; none at a terminal: choose from a list']],
      options: [CONCURRENCY_OPTION, IGNORE_NOT_FOUND_OPTION],
      examples: ['gymctl academy 1', 'seq 1 4 | gymctl academy - --format ndjson', 'gymctl academy 1 2 99 --ignore-not-found --format csv'],
    },
    (academyIds: string[], options: AcademyOptions) => runAcademy(f(), academyIds, options),
  ).usage('[options] <academyId...>');
