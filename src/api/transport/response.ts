/** An answer's body read under a size cap, then validated, or made a GymApiError that says what the server said (never its HTML). */
import * as z from 'zod/mini';
import { MAX_JSON_DEPTH, nestsDeeperThan, parseJsonExact } from '../../json/exact.js';
import { rawMember } from '../../json/raw.js';
import { GymApiError, SPEC_MESSAGES, classifyStatus, type ErrorKind, type ResponseHead } from '../errors.js';
import { errorBodyAsRead } from '../schemas.js';
import { formatIssues, listIssues } from '../validation.js';
import { isRetryableStatus, parseRetryAfter } from './retry.js';
import { bodyBytes } from './platform.js';
import type { Exchange } from './exchange.js';
import type { ApiResponse, Operation } from './types.js';

const MESSAGE_LIMIT = 300;
const clip = (text: string) => (text.length > MESSAGE_LIMIT ? `${text.slice(0, MESSAGE_LIMIT)}…` : text);

const formatBytes = (bytes: number) =>
  bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : bytes >= 1024 && bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;

function headerCorrelationId(headers: Exchange['headers']): string | undefined {
  const id = headers.get('x-correlation-id') ?? headers.get('x-request-id');
  return id === null ? undefined : clip(id);
}

export function responseHead(response: Exchange): ResponseHead {
  const raw = response.rawHeaders ?? [];
  const headers: Array<readonly [string, string]> = [];
  for (let i = 0; i + 1 < raw.length; i += 2) headers.push([raw[i]!, raw[i + 1]!]);
  return { version: `HTTP/${response.httpVersion ?? '1.1'}`, status: response.status, statusText: response.statusText, headers };
}

export function describeAnswer(response: Exchange, characters: number): string {
  const type = response.headers.get('content-type');
  const correlationId = headerCorrelationId(response.headers);
  return `${characters} characters, ${type ? `content type ${type.split(';')[0]!.trim()}` : 'no content type'}${correlationId ? `, correlation ID ${correlationId}` : ''}`;
}

export const ACCEPT_ENCODING = 'gzip, deflate, br';

const metaOf = (response: Exchange, operation: Operation<unknown>, correlationId: string | undefined) => ({
  status: response.status,
  correlationId,
  id: operation.id,
  headers: response.headers,
  head: operation.raw ? responseHead(response) : undefined,
});

function invalid(response: Exchange, operation: Operation<unknown>, why: string, correlationId = headerCorrelationId(response.headers)): GymApiError {
  return new GymApiError('invalid_response', `${operation.subject}: ${why}`, metaOf(response, operation, correlationId));
}

export function readBody(response: Exchange, maxBytes: number, operation: Operation<unknown>): Promise<Uint8Array> {
  const tooLarge = () => {
    response.cancel();
    return invalid(response, operation, `the response body is larger than ${formatBytes(maxBytes)}`);
  };
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.reject(tooLarge());
  const { body } = response;
  if (!body) return Promise.resolve(new Uint8Array(0));
  const coding = response.decoded ? '' : (response.headers.get('content-encoding') ?? '').trim().toLowerCase();
  // Not an async function: a batch reads thousands of bodies, most of them with no coding.
  const bytes = bodyBytes(body, coding, maxBytes, tooLarge);
  if (!bytes) return Promise.reject(invalid(response, operation, `the response has a content coding gymctl cannot decode (${clip(coding)})`));
  if (coding === '' || coding === 'identity') return bytes;
  return bytes.catch((error: unknown) => {
    if (error instanceof GymApiError) throw error;
    response.cancel();
    throw invalid(response, operation, `the ${coding} body cannot be decoded (${(error as { code?: string }).code ?? (error as Error).message})`);
  });
}

function describeBody(response: Exchange): string {
  const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'text/html') return 'an HTML page';
  // Labelled JSON but not: most often an answer cut off on the way.
  if (type === 'application/json' || type.endsWith('+json')) return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type} body that does not parse (cut off, or malformed)`;
  return type ? `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type} body` : 'a body with no content type';
}

const statusLine = (response: Exchange) => `${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;

/** Only the API's own error body speaks for it; any other answer came from something in front of it, never blamed on the key. */
function errorMessage(kind: ErrorKind, response: Exchange, operation: Operation<unknown>, message: string | undefined, isJson: boolean): string {
  const { status } = response;
  const subject = operation.subject;
  const fromApi = message !== undefined;
  const body = isJson ? "a JSON body that is not the API's error" : describeBody(response);
  const login = response.headers.get('www-authenticate');
  const location = response.headers.get('location');
  switch (kind) {
    case 'unauthorized':
      // In a batch, the line names the id it was about, as every other failure's does.
      if (fromApi || (status === 401 && isJson))
        return `${operation.id === undefined ? '' : `${subject}: `}${clip(message ?? SPEC_MESSAGES.unauthorized)}: the server refused the API key`;
      if (status === 401 && login)
        return `${subject}: something in front of the API asks for a login of its own (${clip(login.split(/[\s,]/)[0]!)}), not for the API key: check the base URL, or what stands between you and the API`;
      return `${subject}: access was denied by something in front of the API, which answered ${statusLine(response)} with ${body}; the API itself did not refuse the key`;
    case 'not_found':
      return `${subject}: ${clip(message ?? SPEC_MESSAGES.notFound)}`;
    case 'unavailable':
      if (status === 429) return `${subject}: rate limited by the server${message ? `: ${clip(message)}` : ''}`;
      if (fromApi) return `${subject}: the server is unavailable: ${clip(message!)}`;
      if (status === 502) return `${subject}: ${response.statusText || 'Bad Gateway'}: a gateway in front of the API could not reach it`;
      if (status === 504) return `${subject}: ${response.statusText || 'Gateway Timeout'}: a gateway in front of the API timed out waiting for it`;
      return `${subject}: the server is unavailable: it answered ${statusLine(response)} with ${body}`;
    default:
      // Never a 2xx (data, or an error body whose message gives its kind) nor a 1xx here; a 404 without the API's error body is not "not found".
      if (status === 404) return `${subject}: the 404 answer (${body}) is not the API's: the base URL or its path prefix (such as /api/v1) is probably wrong`;
      if (status < 400) return `${subject}: the server answered with a redirect${location ? ` to ${clip(location)}` : ''}, which gymctl does not follow`;
      return `${subject}: unexpected HTTP status ${statusLine(response)}${fromApi ? `: ${clip(message!)}` : ` with ${body}`}`;
  }
}

/** zod compiles a schema's fast path (new Function) on first parse: worth it over a batch, not for one answer. */
const JIT_AFTER = 64;
let validations = 0;

/** Without a byte order mark, which RFC 8259 lets a parser ignore (browsers' response.json() does). */
const withoutBom = (text: string) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

const NOT_JSON = Symbol('not JSON');

function parseOr(text: string, parse: (text: string) => unknown): unknown {
  try {
    return parse(text);
  } catch {
    return NOT_JSON;
  }
}

/** `debug`: --debug's trace, which gets every problem of an answer that does not match the spec (the message names the first). */
export function interpret<T>(response: Exchange, text: string, operation: Operation<T>, debug?: (line: string) => void): ApiResponse<T> {
  const { status } = response;
  if (nestsDeeperThan(text)) throw invalid(response, operation, `the response nests deeper than ${MAX_JSON_DEPTH} levels`);
  // The byte order mark is skipped for reading; `gymctl api` still gets the body as sent.
  const jsonText = withoutBom(text);
  const json = parseOr(jsonText, parseJsonExact);
  const isJson = json !== NOT_JSON;
  // The error body is looked for only where an error can be: a success with `data` is just data.
  const isSuccess = status >= 200 && status < 300;
  const dataless = typeof json === 'object' && json !== null && !Array.isArray(json) && !('data' in json);
  const errorBody = isJson && (!isSuccess || dataless) ? errorBodyAsRead().safeParse(json) : undefined;
  const sent = errorBody?.success ? errorBody.data : undefined;
  const message = sent?.message ?? undefined;
  const correlationId = (sent?.correlationId == null ? undefined : clip(sent.correlationId)) ?? headerCorrelationId(response.headers);
  const kind = classifyStatus(status, message);
  if (status === 407) {
    // A plain forward proxy (an http: base URL) asks for credentials in its answer, not in a CONNECT.
    const meta = { ...metaOf(response, operation, correlationId), reason: 'proxy' as const };
    const words = 'a proxy between gymctl and the API wants credentials; put them in HTTP_PROXY or HTTPS_PROXY, as http://user:password@host:port';
    throw new GymApiError('unavailable', `${operation.subject}: ${response.statusText || 'Proxy Authentication Required'}: ${words}`, meta);
  }
  // The spec fixes no status codes, not even for success: a 2xx carrying the spec's error body without `data` is an error all the same.
  if (!isSuccess || (dataless && kind !== 'invalid_response')) {
    const retryable = isRetryableStatus(status);
    throw new GymApiError(kind, errorMessage(kind, response, operation, message, isJson), {
      ...metaOf(response, operation, correlationId),
      retryable,
      retryAfterMs: retryable ? parseRetryAfter(response.headers.get('retry-after')) : undefined,
      reason: status === 429 ? 'rate_limited' : kind === 'unavailable' ? 'server_error' : undefined,
      serverMessage: message === undefined ? undefined : clip(message),
    });
  }
  const { headers } = response;
  if (operation.raw || !operation.schema) return { data: undefined as T, rawData: text, status, headers, correlationId };
  if (text.trim() === '') throw invalid(response, operation, 'the server sent an empty response', correlationId);
  if (!isJson) throw invalid(response, operation, `the response is not JSON: the server sent ${describeBody(response)}`, correlationId);
  const parsed = z.safeParse(operation.schema, json, { reportInput: true, jitless: ++validations <= JIT_AFTER });
  if (!parsed.success) {
    for (const problem of debug ? listIssues(parsed.error.issues, operation.schema) : []) debug!(`< problem: ${problem}`);
    throw invalid(response, operation, `unexpected response: ${formatIssues(parsed.error.issues, operation.schema)}`, correlationId);
  }
  return { data: parsed.data.data, rawData: rawMember(jsonText, 'data') ?? 'null', status, headers, correlationId, head: responseHead(response) };
}

export const isJsonText = (text: string) => parseOr(withoutBom(text), JSON.parse) !== NOT_JSON;
