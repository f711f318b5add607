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

/** Where boundedLines says what a request's params were when they were not an object (a string, an array). */
const NOT_AN_OBJECT = 'gymctl/paramsNotAnObject';

export const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * A parsed request (or batch) whose params are not an object, which the SDK's readers refuse as a message with no id,
 * made one that they read: its params then say what they were, for guardRequests to answer -32602 with the request's
 * id. Anything else is handed back as it is (the same value).
 */
export function markParamsNotAnObject(message: unknown): unknown {
  if (Array.isArray(message)) {
    const marked = message.map(markParamsNotAnObject);
    return marked.some((one, at) => one !== message[at]) ? marked : message;
  }
  if (!isObject(message) || message.jsonrpc !== '2.0' || typeof message.method !== 'string' || !('params' in message) || isObject(message.params)) return message;
  const { id, method, params } = message;
  if (typeof id !== 'string' && typeof id !== 'number') return message;
  const was = Array.isArray(params) ? 'an array' : params === null ? 'null' : `a ${typeof params}`;
  return { jsonrpc: '2.0', id, method, params: { _meta: { [NOT_AN_OBJECT]: was } } };
}

/** A line of stdin, through markParamsNotAnObject: rewritten only when its params are not an object. */
function markLine(line: Buffer): Buffer {
  const text = line.toString();
  if (!/"params"\s*:\s*[^\s{]/.test(text)) return line;
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return line;
  }
  const marked = markParamsNotAnObject(message);
  return marked === message ? line : Buffer.from(`${JSON.stringify(marked)}\n`);
}

/** A request with bad params is answered here, before the server sees it. */
export function guardRequests(transport: Transport): void {
  const deliver = transport.onmessage;
  if (!deliver) return;
  transport.onmessage = (message, extra) => {
    const request = message as { id?: unknown; method?: unknown; params?: { _meta?: Record<string, unknown> } };
    const schema = request.id !== undefined && typeof request.method === 'string' ? schemaOf(request.method) : undefined;
    const was = request.params?._meta?.[NOT_AN_OBJECT];
    const parsed = typeof was === 'string' ? undefined : schema?.safeParse(message);
    if (schema && (typeof was === 'string' || (parsed && !parsed.success))) {
      const why = typeof was === 'string' ? `params must be an object, not ${was}` : firstIssue(parsed?.error?.issues ?? []);
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
