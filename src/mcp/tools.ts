/** The MCP tools, derived from the declarations (a batch too, for an operation answering one record by id); wired in server.ts. */
import * as z from 'zod/mini';
import { operationFor } from '../api/client.js';
import type { GymctlError } from '../api/errors.js';
import { described, type Id } from '../api/schemas.js';
import type { ApiResponse, Operation } from '../api/transport/types.js';
import type { Ask, OperationDeclaration } from '../operations/declare.js';
import { argumentsOf, checkIdInput, idsAsText, idText, withTextIds } from './shapes.js';
import { usageError } from '../failures.js';
import { type Shortening, truncatedSchema, type Unfetched } from './fit.js';

/** At most this many ids in one batch call: a model asks for a handful, never for thousands. */
export const MAX_BATCH_IDS = 20;

/** Records fetched by one call of a tool that lists every one, at most: the rest are named, for another call. */
export const MAX_LISTED = 500;

/** Runs an operation against the API, for one tool call (its cancellation included). */
export type Send = <T>(operation: Operation<T>) => Promise<ApiResponse<T>>;

/** What a call that fetches many records is told, and tells, beside `send`. */
export interface CallContext {
  /** Records settled so far, of how many. */
  progress?(done: number, total: number): void;
  /** Whether the call's time limit has run out (and nothing else stopped it): a request aborted then is left out, not failed. */
  timedOut?(): boolean;
}

export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  /** The arguments' object schema; none for a tool that takes none. */
  inputSchema?: z.core.$ZodType;
  outputSchema: z.core.$ZodType;
  /** The structured answer: ids as strings (shapes.ts). Throws a GymctlError on failure (usage ones before any request). */
  run(args: Record<string, unknown>, send: Send, context?: CallContext): Promise<{ data: unknown; unfetched?: Unfetched[] } & Record<string, unknown>>;
  /** How its answer is shortened when too long for one result (fit.ts), for the arguments it was called with. */
  shortening(args: Record<string, unknown>): Shortening;
}

/** `get_academy`, `list_family`, `whoami`: the operation's name, with the verb it is. */
export function toolName(declaration: OperationDeclaration): string {
  if (!declaration.param) return declaration.name;
  return `${declaration.list ? 'list' : 'get'}_${declaration.name}`;
}

/** `get_academies`, from the path's collection (`/academies/{academyId}`), for an operation that answers one record by id. */
export function batchName(declaration: OperationDeclaration): string | undefined {
  if (!declaration.param || declaration.list) return undefined;
  const segments = declaration.path.split('/');
  const collection = segments[segments.indexOf(`{${declaration.param.name}}`) - 1];
  return collection && /^[a-z][a-z0-9-]*$/.test(collection) ? `get_${collection.replaceAll('-', '_')}` : undefined;
}

const IDS_AS_TEXT = 'Every id in the answer is a string of digits, exact however large (ids are 64-bit).';
/** Said once, in the server's instructions, for every tool. */
export const FAILURES =
  'A failed call is a result with isError whose text is JSON: {"error":{"message","kind","correlationId","status","id","next"}} (and "retryAfterSeconds" when rate limited), where next says what to do; kind is one of unauthorized, not_found, unavailable, invalid_response, usage, aborted, internal.';
export const SHORTENED =
  'Every answer says whether it is complete. One that is not (too long for one result, or cut short by the time limit of one call, in which case it holds the records fetched by then) has "complete": false and "truncated", which says what was left out, why, and how to get it.';
const READ_ONLY = 'Read-only: it changes nothing, and the same call gives the same answer while the data is unchanged.';

const sentence = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** What a model reads of a tool: what it does, then what it takes and gives. */
const describe = (...parts: Array<string | undefined>) => [...parts, IDS_AS_TEXT, READ_ONLY].filter(Boolean).join(' ');

const recordSchema = (declaration: OperationDeclaration) => withTextIds(declaration.schema());

/** A tool's answer: `data`, what else it names, and the note of an answer shortened to fit (fit.ts). */
const answerSchema = (data: z.core.$ZodType, more: Record<string, z.core.$ZodType> = {}) =>
  z.looseObject({
    data,
    ...more,
    complete: described(z.boolean(), 'Whether this is the whole answer; when false, truncated says what was left out'),
    truncated: z.optional(truncatedSchema()),
  });

/** The command that prints a whole answer at a terminal, for a caller that wants what a shortened one left out. */
const commandFor = (name: string, ids: readonly unknown[] = []) => ['gymctl', name, ...ids.map(String), '--json'].join(' ');

/** `ids`, each once, in the order first asked: a batch fetches an id once however often it is named. */
const distinct = <T>(ids: readonly T[]): T[] => [...new Map(ids.map((id) => [String(id), id])).values()];

const kindOf = (error: unknown) => (error as GymctlError).kind;

/**
 * The records of `ids` in the order asked, and the ids the API does not know; those the call's time limit left
 * unfetched are named, once some were fetched (none fetched is the timeout's failure). Any other failure fails the call.
 */
async function recordsOf(declaration: OperationDeclaration, ids: readonly Id[], send: Send, context: CallContext = {}) {
  let done = 0;
  const settle = () => context.progress?.(++done, ids.length);
  context.progress?.(0, ids.length);
  const settled = await Promise.allSettled(
    ids.map((id) => {
      const fetched = send(operationFor(declaration, id));
      // A request aborted is not settled: the call ends without it.
      void fetched.then(settle, (error: unknown) => kindOf(error) !== 'aborted' && settle());
      return fetched;
    }),
  );
  const schema = declaration.schema();
  const data: unknown[] = [];
  const notFound: string[] = [];
  const late: string[] = [];
  let aborted: unknown;
  for (const [at, outcome] of settled.entries()) {
    if (outcome.status === 'fulfilled') data.push(idsAsText(schema, outcome.value.data));
    else if (kindOf(outcome.reason) === 'not_found') notFound.push(String(ids[at]));
    else if (kindOf(outcome.reason) === 'aborted' && context.timedOut?.()) {
      late.push(String(ids[at]));
      aborted ??= outcome.reason;
    } else throw outcome.reason;
  }
  if (late.length > 0 && data.length + notFound.length === 0) throw aborted;
  return { data, notFound, unfetched: late.length > 0 ? [{ ids: late, reason: 'time_limit' } as const] : [] };
}

/** The tool of one operation: `whoami`, `get_academy {academyId}`, `list_family {memberId}`. */
function singleTool(declaration: OperationDeclaration): ToolSpec {
  const { param, openapi } = declaration;
  const record = recordSchema(declaration);
  const gives = declaration.list
    ? `Answers {"data": [...]}: a list of ${openapi.component} records, possibly empty.`
    : `Answers {"data": {...}}: one ${openapi.component} record, with the fields the API sent.`;
  const takes = param ? `Takes ${param.name}, the ${param.what}: a positive whole number, best sent as a string ("42").` : 'Takes no arguments.';
  return {
    name: toolName(declaration),
    title: declaration.openapi.summary,
    description: describe(
      `${sentence(declaration.question)}: ${openapi.summary.replace(/^./, (c) => c.toLowerCase())} (${declaration.method} ${declaration.path}).`,
      openapi.description,
      takes,
      param?.found,
      gives,
    ),
    ...(param ? { inputSchema: argumentsOf({ [param.name]: param }) } : {}),
    outputSchema: answerSchema(declaration.list ? described(z.array(record), `The ${openapi.component} records, possibly none`) : record),
    async run(args, send) {
      const id = param ? checkIdInput(args[param.name], param.what) : undefined;
      const response = await send(operationFor(declaration, id));
      return { data: idsAsText(declaration.list ? z.array(declaration.schema()) : declaration.schema(), response.data) };
    },
    shortening: (args) => ({
      shape: declaration.list ? 'list' : 'record',
      command: commandFor(declaration.command.name, param ? [args[param.name]] : []),
    }),
  };
}

/** What a tool answering records by id gives back: the records, and the ids the API does not know. */
const recordsSchema = (declaration: OperationDeclaration) =>
  answerSchema(described(z.array(recordSchema(declaration)), `The ${declaration.openapi.component} records found, in the order asked`), {
    notFound: described(z.array(idText()), "Ids the API does not know, or that lie outside this key's scope"),
  });

/** Up to MAX_BATCH_IDS ids at once, each fetched once. */
function batchTool(declaration: OperationDeclaration, name: string): ToolSpec {
  const param = declaration.param!;
  const many = `${param.name}s`;
  const takes = `Takes ${many}: 1 to ${MAX_BATCH_IDS} ${param.what}s, each a positive whole number, best sent as a string; for one, ${toolName(declaration)} does the same.`;
  const gives = `Answers {"data": [...], "notFound": [...]}: the ${declaration.openapi.component} records in the order asked (an id named twice is fetched and answered once), and the ids the API does not know (or that lie outside this key's scope). Any other failure fails the whole call.`;
  return {
    name,
    title: `${sentence(declaration.topic)} by id, several at once`,
    description: describe(
      `${sentence(declaration.topic)} by id, several at once: ${declaration.question} for each id (one ${declaration.method} ${declaration.path} each).`,
      takes,
      param.found,
      gives,
    ),
    inputSchema: argumentsOf({ [many]: { ...param, max: MAX_BATCH_IDS } }),
    outputSchema: recordsSchema(declaration),
    async run(args, send, context) {
      const given = args[many];
      if (!Array.isArray(given) || given.length === 0 || given.length > MAX_BATCH_IDS) {
        throw usageError(
          `${many} must be a list of 1 to ${MAX_BATCH_IDS} ${param.what}s${Array.isArray(given) && given.length > 0 ? `, not ${given.length}: split the call` : ''}`,
        );
      }
      return recordsOf(declaration, distinct(given.map((value) => checkIdInput(value, param.what))), send, context);
    },
    shortening: (args) => ({ shape: 'batch', tool: name, perCall: MAX_BATCH_IDS, command: commandFor(declaration.command.name, distinct((args[many] as unknown[]) ?? [])) }),
  };
}

/** `list_academies`: every record whose id the operation's values list (the key's academies), in one call, as `gymctl academies` shows them. */
function everyTool(declaration: OperationDeclaration, values: NonNullable<OperationDeclaration['values']>, batch: string | undefined): ToolSpec {
  const name = `list_${values.all.name.replaceAll('-', '_')}`;
  const title = sentence(values.all.description.replace(/^show /, ''));
  const gives = `Answers {"data": [...], "notFound": [...]}: the ${declaration.openapi.component} records, and the ids listed that the API does not know; past ${MAX_LISTED}, the first ${MAX_LISTED}, and the rest named in truncated.omittedIds.`;
  return {
    name,
    title,
    description: describe(`${title}, in one call (one ${declaration.method} ${declaration.path} each).`, 'Takes no arguments.', gives),
    outputSchema: recordsSchema(declaration),
    async run(_args, send, context) {
      const ask: Ask = async (asked, id) => (await send(operationFor(asked, id))).data as never;
      const ids = distinct((await values.load(ask)).ids);
      const { unfetched, ...found } = await recordsOf(declaration, ids.slice(0, MAX_LISTED), send, context);
      const capped = ids.slice(MAX_LISTED).map(String);
      return { ...found, unfetched: capped.length > 0 ? [...unfetched, { ids: capped, reason: 'cap' }] : unfetched };
    },
    shortening: () => ({ shape: 'batch', command: commandFor(values.all.name), cap: MAX_LISTED, ...(batch ? { tool: batch, perCall: MAX_BATCH_IDS } : {}) }),
  };
}

/** Every tool, in the operations' order: each one's own, its batch, and the one listing every record of the key. */
export function toolsOf(operations: readonly OperationDeclaration[]): ToolSpec[] {
  return operations.flatMap((declaration) => {
    const batch = batchName(declaration);
    const hasBatch = batch !== undefined && batch !== toolName(declaration);
    return [
      singleTool(declaration),
      ...(hasBatch ? [batchTool(declaration, batch)] : []),
      ...(declaration.values && !declaration.list ? [everyTool(declaration, declaration.values, hasBatch ? batch : undefined)] : []),
    ];
  });
}
