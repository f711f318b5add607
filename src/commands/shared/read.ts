/** What the read commands share: collecting ids (arguments, and `-` for stdin), and fetching a batch of them into the output format. */
import { operationFor } from '../../api/client.js';
import { GymApiError, type GymctlError } from '../../api/errors.js';
import { isValidId } from '../../api/ids.js';
import type { Id } from '../../api/schemas.js';
import type { ApiResponse } from '../../api/transport/types.js';
import type { ApiSession, Factory } from '../../factory.js';
import { AlreadyReported, Interrupted, usageError } from '../../failures.js';
import { tuneV8 } from '../../files/system.js';
import { rawArrayItems, withFirstMember } from '../../json/raw.js';
import type { OperationDeclaration } from '../../operations/declare.js';
import type { OutputChoice } from '../../output/choice.js';
import { parseColumns } from '../../output/columns.js';
import { createEmitter, type Emitter, type OutputItem, type Shape } from '../../output/emit.js';
import { formatErrorJson, formatErrorLine, formatFailure } from '../../output/errors.js';
import { createProgress } from '../../output/progress.js';
import { type ResourceView, type Row, viewsOf } from '../../output/views.js';
import { coalesce } from '../../terminal/coalesce.js';
import { room } from '../../terminal/drain.js';
import { readStdin } from '../../terminal/prompt.js';
import { runBatch } from './batch.js';
import { parseIdArgument, parseIdList } from './ids.js';

/** Room for millions of ids on stdin; they are all read and checked before anything is sent. */
const MAX_ID_INPUT_BYTES = 64 * 1024 * 1024;

/** The ids of the arguments, in order: one id, several with commas (`1,2,3`, as kubectl takes them), or `-` for stdin; all checked before anything is sent. */
export async function collectIds(f: Pick<Factory, 'io'>, texts: readonly string[], what: string): Promise<{ ids: Id[]; shape: Shape }> {
  if (texts.filter((text) => text === '-').length > 1) throw usageError('- (read ids from stdin) can be given only once');
  const fromArguments = texts.map((text) => (text === '-' ? undefined : parseIdArgument(text, what)));
  const ids: Id[] = [];
  for (const listed of fromArguments) {
    if (listed !== undefined) ids.push(...listed);
    else {
      // Ids from stdin make a long batch as a rule: V8 is tuned for one before they are read (tuneV8 says why).
      tuneV8('long batch');
      const text = await readStdin(f.io, MAX_ID_INPUT_BYTES, 'a list of ids');
      // Digits in UTF-16 with no byte-order mark read as UTF-8 are digits and NULs: said as such, rather than as an id "1\u0000".
      if (text.includes('\u0000'))
        throw usageError(
          'stdin holds NUL characters, as UTF-16 text with no byte-order mark does: gymctl reads ids as UTF-8, or as UTF-16 with its byte-order mark, and never guesses UTF-16; save them in one of those',
        );
      ids.push(...parseIdList(text, what));
    }
  }
  // Several ids or `-`: the output is a list even when it holds one record.
  const several = texts.length > 1 || texts.some((text) => text === '-' || text.includes(','));
  return { ids, shape: several ? 'many' : 'one' };
}

/** Checks --columns against the resource before anything is sent (a GET /me included). */
export async function checkColumns<T>(f: Pick<Factory, 'output'>, view: ResourceView<T>): Promise<void> {
  const { columns } = await f.output();
  if (columns !== undefined) parseColumns(view, columns);
}

/** A batch longer than this has V8's young generation bounded (tuneV8 says why). */
const LONG_BATCH = 1000;

export type BatchDeps = Pick<Factory, 'io' | 'env' | 'onDispose'>;
/** What the read commands use of the session: the client, the next step of a failure, and --debug. */
export type Session = Pick<ApiSession, 'client' | 'explain'> & { settings: Pick<ApiSession['settings'], 'debug'> };

export interface FetchOptions {
  ids: readonly Id[];
  shape: Shape;
  output: OutputChoice;
  concurrency: number;
  ignoreNotFound?: boolean | undefined;
  /** Ids the API listed (GET /me): one gymctl cannot send (0, or beyond 2^63−1) is the answer's fault, not a usage error. */
  fromServer?: boolean;
  /** On a terminal, when there is nothing to show. */
  emptyMessage?: string | undefined;
}

/** A record of a list answer, marked with the id it answers (`familyOf`), its own text kept as sent. */
function rows(response: ApiResponse<unknown>, id: Id, of: string): Array<OutputItem<Row>> {
  const records = response.data as Row[];
  return rawArrayItems(response.rawData).map((raw, i) => ({ data: { [of]: id, ...records[i] }, raw: withFirstMember(raw, of, String(id)) }));
}

/** An operation fetched for each id, each result printed in argument order (see runBatch); failures on stderr as they happen, then the first one's exit code. */
export async function fetchOperation(f: BatchDeps, declaration: OperationDeclaration, { client, explain, settings }: Session, options: FetchOptions): Promise<void> {
  const { ids, output } = options;
  const list = declaration.listAnswer;
  // JSON keeps each list as the API sent it (one id: that list; several: a list of them); other formats, and --jq in every
  // format, take a record at a time (a member, with its familyOf).
  const whole = output.format === 'json' && !output.jq;
  const what = declaration.param ? declaration.param.what : 'id';
  const label = declaration.command.progress ?? 'Fetching';
  const emptyMessage = options.emptyMessage ?? (list && (options.shape === 'one' ? list.empty.one(ids[0]!) : list.empty.many));
  const progress = createProgress(f.io, f.env, ids.length, label);
  const io = coalesce(f.io, (write) => progress.above(write));
  let emitter: Emitter<Row> | undefined;
  /** Until the batch has ended or failed of itself: the command's end before then is an interrupt. */
  let cutShort = false;
  let fetched = 0;
  // Whatever way the command ends (an interrupt included), the progress line goes.
  f.onDispose(async () => {
    if (cutShort && emitter?.stop) {
      // A table at a terminal: the rows that arrived are drawn and the box closed, and people are told how a script gets them all.
      emitter.stop();
      io.flush();
      progress.done();
      const noun = label.replace(/^Fetching /, '');
      f.io.err(
        `gymctl: interrupted after fetching ${fetched} of ${ids.length} ${noun}; the rest were not fetched. In a script, --format ndjson writes each record as it arrives, so an interrupted run keeps every record it fetched\n`,
      );
    }
    progress.done();
  });
  const views = viewsOf(declaration);
  emitter = await createEmitter(io, output, list && options.shape === 'one' ? views.one : views.many, list && !whole ? 'many' : options.shape, {
    ...(emptyMessage ? { emptyMessage } : {}),
    // Every id is known before the first request: a table drawn in parts is as wide as the widest from its first part.
    widest: { [list ? list.of : 'id']: ids.reduce<string>((widest, id) => (String(id).length > widest.length ? String(id) : widest), '') },
  });
  const out = emitter;
  let failure: GymctlError | undefined;
  let notTried: number | undefined;
  if (ids.length > LONG_BATCH) tuneV8('long batch');
  cutShort = true;
  try {
    failure = await runBatch({
      ids,
      concurrency: options.concurrency,
      request: (id, signal) =>
        options.fromServer && !isValidId(id)
          ? Promise.reject(new GymApiError('invalid_response', `the API key lists ${what} ${String(id)}, which gymctl cannot request (ids it sends are 1 to 2^63−1)`, { id }))
          : client.request(operationFor(declaration, id), signal),
      // A reader slower than the requests (a full pipe, a paused pager, jq behind): no request starts until it has room.
      room: () => out.room?.() ?? room(f.io.stdout),
      onResult: (response: ApiResponse<unknown>, id) => {
        if (!list) out.write({ data: response.data as Row, raw: response.rawData });
        else if (whole) out.write({ data: { [list.of]: id }, raw: response.rawData });
        else for (const record of rows(response, id, list.of)) out.write(record);
        fetched++;
        progress.tick();
      },
      onError: (error) => {
        io.err(formatFailure(explain(error), output.format, settings.debug));
        progress.tick();
      },
      onStopped: (count) => {
        notTried = count;
      },
      skip: (error) => {
        if (options.ignoreNotFound !== true || error.kind !== 'not_found') return false;
        // `--ignore-not-found`, as kubectl has it: a note at a terminal alone, a JSON line `{"skipped":{…}}` where errors are JSON.
        if (io.stderrIsTTY) io.err(output.format === 'table' ? formatErrorLine(error.with({ message: `skipped ${error.message}` })) : formatErrorJson(error, 'skipped'));
        progress.tick();
        return true;
      },
    });
  } catch (error) {
    if (!(error instanceof Interrupted)) cutShort = false;
    throw error;
  } finally {
    io.flush();
    progress.done();
  }
  cutShort = false;
  if (failure && notTried !== undefined) {
    // The key was refused: said once, with the ids left untried (a script reads them from the JSON line's notTried).
    const refusal = explain(failure);
    if (output.format !== 'table') io.err(formatErrorJson(refusal, 'error', notTried ? { notTried } : {}));
    else io.err(`${formatErrorLine(refusal)}${notTried ? `gymctl: the batch stopped there: ${notTried} of ${ids.length} ids were not tried\n` : ''}`);
  }
  try {
    await out.end(failure !== undefined);
  } finally {
    io.flush();
  }
  if (failure) throw new AlreadyReported(failure.kind);
}
