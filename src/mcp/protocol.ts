/**
 * JSON-RPC's errors where the SDK would answer otherwise: bad params get -32602 in one line with the request's id (the
 * SDK answers -32603 with a dump of zod issues, and its stdio reader refuses params that are not an object as a message
 * with no id), and a line too long for stdin is skipped with -32600 (the SDK's reader would close the session).
 */
import { Transform, type TransformCallback } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ClientRequestSchema, ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export const { ParseError: PARSE_ERROR, InvalidRequest: INVALID_REQUEST } = ErrorCode;

type Schema = { safeParse(value: unknown): { success: boolean; error?: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> } } };

/** The schema of a request method the SDK's server knows. */
const schemaOf = (method: string): Schema | undefined =>
  (ClientRequestSchema as unknown as { options: Array<Schema & { shape: { method: { value: string } } }> }).options.find((schema) => schema.shape.method.value === method);

/** `params.arguments: expected record, received number`, for the first issue. */
function firstIssue(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string {
  const issue = issues[0];
  if (!issue) return 'not the form this method takes';
  const where = issue.path.map(String).join('.');
  return `${where ? `${where}: ` : ''}${issue.message.replace(/^Invalid input: /, '')}`;
}

/** Where markRefusedParams says what was wrong with a request's params, for guardRequests to answer. */
const REFUSED = 'gymctl/refusedParams';

export const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

const kind = (value: unknown) => (Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`);

/** What the SDK's readers refuse in params as a message with no id: params or their `_meta` not an object, a progress token neither text nor whole. */
function refusal(params: unknown): string | undefined {
  if (!isObject(params)) return `params must be an object, not ${kind(params)}`;
  const { _meta: meta } = params;
  if (meta !== undefined && !isObject(meta)) return `params._meta must be an object, not ${kind(meta)}`;
  const token = meta?.progressToken;
  if (token !== undefined && typeof token !== 'string' && !Number.isInteger(token)) return 'params._meta.progressToken must be a string or a whole number';
}

/**
 * A parsed request (or batch) with params the SDK's readers refuse (refusal) made one that they read: its params then
 * say what was wrong, for guardRequests to answer -32602 with the request's id. Anything else is handed back as it is.
 */
export function markRefusedParams(message: unknown): unknown {
  if (Array.isArray(message)) {
    const marked = message.map(markRefusedParams);
    return marked.some((one, at) => one !== message[at]) ? marked : message;
  }
  if (!isObject(message) || message.jsonrpc !== '2.0' || typeof message.method !== 'string' || !('params' in message)) return message;
  const { id, method, params } = message;
  const why = refusal(params);
  return why === undefined || (typeof id !== 'string' && typeof id !== 'number') ? message : { jsonrpc: '2.0', id, method, params: { _meta: { [REFUSED]: why } } };
}

/** A line of stdin, through markRefusedParams: parsed only when its params are not an object, or it has a `_meta`. */
function markLine(line: Buffer): Buffer {
  const text = line.toString();
  if (!/"params"\s*:\s*[^\s{]|"_meta"/.test(text)) return line;
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return line;
  }
  const marked = markRefusedParams(message);
  return marked === message ? line : Buffer.from(`${JSON.stringify(marked)}\n`);
}

/** A request with bad params is answered here, before the server sees it. */
export function guardRequests(transport: Transport): void {
  const deliver = transport.onmessage;
  if (!deliver) return;
  transport.onmessage = (message, extra) => {
    const request = message as { id?: unknown; method?: unknown; params?: { _meta?: Record<string, unknown> } };
    const schema = request.id !== undefined && typeof request.method === 'string' ? schemaOf(request.method) : undefined;
    const refused = request.params?._meta?.[REFUSED];
    const parsed = typeof refused === 'string' ? undefined : schema?.safeParse(message);
    if (schema && (typeof refused === 'string' || (parsed && !parsed.success))) {
      const why = typeof refused === 'string' ? refused : firstIssue(parsed?.error?.issues ?? []);
      const reply = {
        jsonrpc: '2.0' as const,
        id: request.id as string | number,
        error: { code: ErrorCode.InvalidParams, message: `Invalid params for ${String(request.method)}: ${why}` },
      };
      void transport.send(reply as JSONRPCMessage, { relatedRequestId: reply.id }).catch(() => {});
      return;
    }
    deliver.call(transport, message, extra);
  };
}

/** The error answer to what has no id that can be read: a line too long, not JSON, or not a JSON-RPC message. */
export const unreadable = (code: number, message: string) => ({ jsonrpc: '2.0', id: null, error: { code, message } }) as unknown as JSONRPCMessage;

/** Stdin as whole lines of at most `max` bytes: a longer one is dropped, and `tooLong` told. */
export function boundedLines(max: number, tooLong: () => void): Transform {
  let held: Buffer[] = [];
  let length = 0;
  let skipping = false;
  return new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      let start = 0;
      while (start < chunk.length) {
        const end = chunk.indexOf(0x0a, start);
        const piece = chunk.subarray(start, end === -1 ? chunk.length : end + 1);
        start += piece.length;
        if (!skipping && length + piece.length > max + 1) {
          skipping = true;
          held = [];
          tooLong();
        }
        if (!skipping) {
          held.push(piece);
          length += piece.length;
        }
        if (end !== -1) {
          if (!skipping) this.push(markLine(Buffer.concat(held)));
          held = [];
          length = 0;
          skipping = false;
        }
      }
      done();
    },
    flush(done: TransformCallback) {
      if (!skipping && held.length > 0) this.push(markLine(Buffer.concat(held)));
      done();
    },
  });
}
