/**
 * Every declared operation's command (`gymctl academy 1 2`, `gymctl academy -`, `gymctl academies`): ids from arguments,
 * commas or stdin, checked before anything is sent; a request per id, in bounded batches; and, where the API lists the ids,
 * a list to choose from when none is given at a terminal.
 */
import { operationFor } from '../../api/client.js';
import { GymctlError } from '../../api/errors.js';
import type { GlobalFlags } from '../../config/settings.js';
import type { Factory } from '../../factory.js';
import { usageError } from '../../failures.js';
import { parseWholeNumber } from '../../files/system.js';
import type { OperationDeclaration, PathParam } from '../../operations/declare.js';
import { createEmitter } from '../../output/emit.js';
import { type Row, viewsOf } from '../../output/views.js';
import { parseConcurrency } from '../shared/batch.js';
import { type BatchDeps, checkColumns, collectIds, fetchOperation, type Session } from '../shared/read.js';

export interface ReadFlags extends GlobalFlags {
  concurrency?: string;
  ignoreNotFound?: boolean;
  limit?: string;
}

export type ReadDeps = BatchDeps & Pick<Factory, 'output'> & { client(maxConnections?: number): Promise<Session> } & Partial<Pick<Factory, 'signal'>>;

/** An operation without a path parameter (GET /me): one request, one record. */
export async function runSingle(f: Pick<ReadDeps, 'io' | 'output' | 'client'>, declaration: OperationDeclaration): Promise<void> {
  const emitter = await createEmitter(f.io, await f.output(), viewsOf(declaration).one, 'one');
  const { client, explain } = await f.client();
  const response = await client.request(operationFor(declaration)).catch((error: unknown) => Promise.reject(explain(error)));
  emitter.write({ data: response.data as Row, raw: response.rawData });
  await emitter.end(false);
}

/**
 * No id given: at a terminal (stdin and stdout), where the API lists the ids, a list to choose from, and the command that does
 * the same said on stderr, for scripts; elsewhere, or with GYMCTL_NO_INPUT set, the usage error.
 */
async function choose(f: ReadDeps, declaration: OperationDeclaration, param: PathParam, flags: ReadFlags, concurrency: number): Promise<string> {
  const { values } = declaration;
  if (!values || !f.io.stdinIsTTY || !f.io.stdoutIsTTY || f.env.GYMCTL_NO_INPUT) {
    throw usageError(`missing required argument '${param.name}'; usage: gymctl ${declaration.command.name} [options] <${param.name}...>`);
  }
  const { client, explain } = await f.client(concurrency);
  const { ids, none } = await values.load(client.ask, f.signal).catch((error: unknown) => Promise.reject(explain(error)));
  if (ids.length === 0) throw new GymctlError('not_found', `${none.replace(/\.$/, '').replace(/^The /, 'the ')}, so there is none to choose`);
  const { label } = values;
  // A name that cannot be had is left out, but a refused key (401, 403) is refused for every id: the rest are cancelled.
  const refused = new AbortController();
  const signal = f.signal ? AbortSignal.any([f.signal, refused.signal]) : refused.signal;
  const unnamed = (error: unknown) => {
    if (error instanceof GymctlError && error.kind === 'unauthorized' && !refused.signal.aborted) refused.abort(error);
  };
  const names = await Promise.all(ids.map((id) => label && client.ask(declaration, id, signal).then((record) => `${label(record) ?? '(no name)'} (id ${id})`, unnamed)));
  const choices = ids.map((id, i) => ({ value: String(id), name: names[i] || `id ${id}` }));
  if (refused.signal.aborted) throw explain(refused.signal.reason);
  const { pick } = await import('../../terminal/picker.js');
  const id = await pick(f.io, `Which ${param.what.replace(/ id$/, '')}? (type to filter)`, choices, f.signal);
  const given = [flags.sandbox && '--sandbox', flags.profile && `--profile ${flags.profile}`, flags.baseUrl && `--base-url ${flags.baseUrl}`];
  f.io.err(`${[`gymctl ${declaration.command.name} ${id}`, ...given].filter(Boolean).join(' ')}\n`);
  return id;
}

/** An operation with a path parameter: `gymctl academy 1 2`, `gymctl academy 1,2`, `gymctl academy -`. */
export async function runPerId(f: ReadDeps, declaration: OperationDeclaration, idTexts: readonly string[], flags: ReadFlags): Promise<void> {
  const param = declaration.param!;
  const concurrency = parseConcurrency(flags.concurrency);
  const given = idTexts.length > 0 ? idTexts : [await choose(f, declaration, param, flags, concurrency)];
  const { ids, shape } = await collectIds(f, given, param.what);
  const output = await f.output();
  await checkColumns(f, viewsOf(declaration).many);
  // `-` with nothing on stdin (`< /dev/null`, an empty file): said so on a terminal, rather than a bare "Nothing to show.".
  await fetchOperation(f, declaration, await f.client(concurrency), {
    ids,
    shape,
    output,
    concurrency,
    ignoreNotFound: flags.ignoreNotFound,
    emptyMessage: ids.length === 0 ? `No ${param.what}s on stdin, so nothing to show.` : undefined,
  });
}

/** Every id the API lists for an operation (`gymctl academies`), in that order. */
export async function runAll(f: ReadDeps, declaration: OperationDeclaration, flags: ReadFlags): Promise<void> {
  const concurrency = parseConcurrency(flags.concurrency);
  const limit = flags.limit === undefined ? undefined : parseWholeNumber(flags.limit, 1, Number.MAX_SAFE_INTEGER);
  if (flags.limit !== undefined && limit === undefined)
    throw usageError(`invalid --limit ${JSON.stringify(flags.limit)}: expected a whole number from 1 to ${Number.MAX_SAFE_INTEGER}`);
  await checkColumns(f, viewsOf(declaration).many);
  const session = await f.client(concurrency);
  const { client, explain } = session;
  const { ids, none } = await declaration.values!.load(client.ask, f.signal).catch((error: unknown) => Promise.reject(explain(error)));
  await fetchOperation(f, declaration, session, {
    ids: ids.slice(0, limit),
    shape: 'many',
    output: await f.output(),
    concurrency,
    ignoreNotFound: flags.ignoreNotFound,
    fromServer: true,
    emptyMessage: none,
  });
}
