/**
 * The MCP tools, one per declared operation (and a bounded batch for an
 * operation that answers one record by id), derived from the declarations
 * as every other surface is: a fourth operation is a fourth tool. Plain
 * data and functions: the SDK is wired in server.ts.
 */
import * as z from 'zod/mini';
import { operationFor } from '../api/client.js';
import type { GymctlError } from '../api/errors.js';
import { envelope, type Id } from '../api/schemas.js';
import type { ApiResponse, Operation } from '../api/transport/types.js';
import type { OperationDeclaration } from '../operations/declare.js';
import { argumentsOf, checkIdInput, idsAsText, idText, withTextIds } from './shapes.js';
import { usageError } from '../failures.js';

/** At most this many ids in one batch call: a model asks for a handful, never for thousands. */
export const MAX_BATCH_IDS = 20;

/** Requests at once in a batch call. */
const BATCH_CONCURRENCY = 4;

/** Runs an operation against the API, for one tool call (its cancellation included). */
export type Send = <T>(operation: Operation<T>) => Promise<ApiResponse<T>>;

export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  /** The arguments' object schema; none for a tool that takes none. */
  inputSchema?: z.core.$ZodType;
  outputSchema: z.core.$ZodType;
  /** The structured answer: ids as strings (shapes.ts). Throws a GymctlError on failure (usage ones before any request). */
  run(args: Record<string, unknown>, send: Send): Promise<Record<string, unknown>>;
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
const FAILURES =
  'A failure is a result with isError whose text is JSON: {"error":{"message","kind","correlationId","status","id","next"}} (and "retryAfterSeconds" when rate limited), where next says what to do (kind is one of unauthorized, not_found, unavailable, invalid_response, usage, aborted, internal).';
const READ_ONLY = 'Read-only: it changes nothing, and the same call gives the same answer while the data is unchanged.';

const sentence = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** What a model reads: what the tool answers, what it takes and where those ids come from, what it gives back, and how it fails. */
function describe(declaration: OperationDeclaration, takes: string, gives: string, batch = false): string {
  const { openapi, param } = declaration;
  const what = `${sentence(declaration.question)}: ${openapi.summary.replace(/^./, (c) => c.toLowerCase())}`;
  return [
    batch
      ? `${sentence(declaration.topic)} by id, several at once: ${declaration.question} for each id (one ${declaration.method} ${declaration.path} each).`
      : `${what} (${declaration.method} ${declaration.path}).`,
    batch ? '' : openapi.description,
    takes,
    param?.found ?? '',
    gives,
    IDS_AS_TEXT,
    FAILURES,
    READ_ONLY,
  ]
    .filter(Boolean)
    .join(' ');
}

/** One record's schema as a tool answers it. */
const recordSchema = (declaration: OperationDeclaration) => withTextIds(declaration.schema());

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
    description: describe(declaration, takes, gives),
    ...(param ? { inputSchema: argumentsOf({ [param.name]: param }) } : {}),
    outputSchema: envelope(declaration.list ? z.array(record) : record),
    async run(args, send) {
      const id = param ? checkIdInput(args[param.name], param.what) : undefined;
      const response = await send(operationFor(declaration, id));
      return { data: idsAsText(declaration.list ? z.array(declaration.schema()) : declaration.schema(), response.data) };
    },
  };
}

/** Up to MAX_BATCH_IDS ids at once: the records in the order asked, the ids the API does not know apart, and any other failure fails the call. */
function batchTool(declaration: OperationDeclaration, name: string): ToolSpec {
  const param = declaration.param!;
  const many = `${param.name}s`;
  const takes = `Takes ${many}: 1 to ${MAX_BATCH_IDS} ${param.what}s, each a positive whole number, best sent as a string; for one, ${toolName(declaration)} does the same.`;
  const gives = `Answers {"data": [...], "notFound": [...]}: the ${declaration.openapi.component} records in the order asked, and the ids the API does not know (or that lie outside this key's scope). Any other failure fails the whole call.`;
  return {
    name,
    title: `${sentence(declaration.topic)} by id, several at once`,
    description: describe(declaration, takes, gives, true),
    inputSchema: argumentsOf({ [many]: { ...param, max: MAX_BATCH_IDS } }),
    outputSchema: z.object({ data: z.array(recordSchema(declaration)), notFound: z.array(idText()) }),
    async run(args, send) {
      const given = args[many];
      if (!Array.isArray(given) || given.length === 0 || given.length > MAX_BATCH_IDS) {
        throw usageError(
          `${many} must be a list of 1 to ${MAX_BATCH_IDS} ${param.what}s${Array.isArray(given) && given.length > 0 ? `, not ${given.length}: split the call` : ''}`,
        );
      }
      const ids = given.map((value) => checkIdInput(value, param.what));
      const answers: Array<{ data?: unknown; notFound?: Id }> = new Array(ids.length);
      let next = 0;
      /** Failures other than not found, by position: the first asked for is the call's. */
      const failures: Array<{ at: number; error: GymctlError }> = [];
      const worker = async () => {
        for (let at = next++; at < ids.length && failures.length === 0; at = next++) {
          try {
            answers[at] = { data: (await send(operationFor(declaration, ids[at]))).data };
          } catch (error) {
            if ((error as GymctlError).kind === 'not_found') answers[at] = { notFound: ids[at]! };
            else failures.push({ at, error: error as GymctlError });
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(BATCH_CONCURRENCY, ids.length) }, worker));
      const [first] = failures.sort((a, b) => a.at - b.at);
      if (first) throw first.error;
      const schema = declaration.schema();
      return {
        data: answers.filter((answer) => answer.notFound === undefined).map((answer) => idsAsText(schema, answer.data)),
        notFound: answers.filter((answer) => answer.notFound !== undefined).map((answer) => String(answer.notFound)),
      };
    },
  };
}

/** Every tool of the declared operations, in their order: each operation's own, then its batch. */
export function toolsOf(operations: readonly OperationDeclaration[]): ToolSpec[] {
  return operations.flatMap((declaration) => {
    const batch = batchName(declaration);
    return [singleTool(declaration), ...(batch && batch !== toolName(declaration) ? [batchTool(declaration, batch)] : [])];
  });
}
