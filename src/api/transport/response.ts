/**
 * Reading and interpreting an answer: the body under a size cap, then what
 * it means. A success is parsed and validated against the operation's
 * schema; anything else becomes a GymApiError of the right kind, with a
 * message that says what the server said (never an HTML page it sent).
 */
import * as z from 'zod/mini';
import { MAX_JSON_DEPTH, nestsDeeperThan, parseJsonExact } from '../../json/exact.js';
import { rawMember } from '../../json/raw.js';
import { GymApiError, SPEC_MESSAGES, classifyStatus, type ErrorKind } from '../errors.js';
import { errorBodySchema } from '../schemas.js';
import { formatIssues } from '../validation.js';
import { RETRYABLE_STATUSES, parseRetryAfter } from './retry.js';
import type { Exchange } from './types.js';
import type { ApiResponse, Operation } from './types.js';

const MESSAGE_LIMIT = 300;
export const clip = (text: string) => (text.length > MESSAGE_LIMIT ? `${text.slice(0, MESSAGE_LIMIT)}…` : text);

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

export function headerCorrelationId(headers: Exchange['headers']): string | undefined {
  const id = headers.get('x-correlation-id') ?? headers.get('x-request-id');
  return id === null ? undefined : clip(id);
}

export function describeContentType(response: Exchange): string {
  const type = response.headers.get('content-type');
  return type ? `content type ${type.split(';')[0]!.trim()}` : 'no content type';
}

/** Content codings gymctl asks for (RFC 9110 §8.4), each decoded with node:zlib. */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

/** The decoder for a Content-Encoding, or undefined for none; an unknown coding is an error. */
function decoderFor(coding: string, fail: (why: string) => GymApiError) {
  if (coding === '' || coding === 'identity') return undefined;
  const zlib = process.getBuiltinModule('node:zlib');
  if (coding === 'gzip' || coding === 'x-gzip') return zlib.createGunzip();
  if (coding === 'deflate') return zlib.createInflate();
  if (coding === 'br') return zlib.createBrotliDecompress();
  throw fail(`the response has a content coding gymctl cannot decode (${clip(coding)})`);
}

type NodeStream = NodeJS.ReadableStream & { destroy(error?: Error): void };

const isNodeStream = (body: unknown): body is NodeStream => typeof (body as { pipe?: unknown }).pipe === 'function';

/** Every chunk of a Node stream, read with events (cheaper than an async iterator), refused past `maxBytes`. */
function collect(stream: NodeStream, maxBytes: number, tooLarge: () => GymApiError): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    stream.on('data', (data: Uint8Array) => {
      const chunk = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
      total += chunk.length;
      if (total > maxBytes) {
        stream.destroy();
        reject(tooLarge());
      } else chunks.push(chunk);
    });
    stream.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total)));
    stream.on('error', reject);
  });
}

/**
 * The body as text, decoded when it came compressed, and refused (the
 * connection dropped) past `maxBytes`, compressed or decoded: a compression
 * bomb is stopped after `maxBytes` of output, in bounded memory and time.
 */
export async function readBody(response: Exchange, maxBytes: number, operation: Operation<unknown>): Promise<string> {
  const fail = (why: string) =>
    new GymApiError('invalid_response', `${operation.subject}: ${why}`, {
      status: response.status,
      correlationId: headerCorrelationId(response.headers),
      id: operation.id,
      headers: response.headers,
    });
  const tooLarge = () => {
    response.cancel();
    return fail(`the response body is larger than ${formatBytes(maxBytes)}`);
  };
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  const { body } = response;
  if (!body) return '';
  const coding = response.decoded ? '' : (response.headers.get('content-encoding') ?? '').trim().toLowerCase();
  const decoder = decoderFor(coding, fail);
  if (!decoder && isNodeStream(body)) return (await collect(body, maxBytes, tooLarge)).toString('utf8');
  const source = isNodeStream(body) ? body : process.getBuiltinModule('node:stream').Readable.from(body);
  if (!decoder) return (await collect(source as NodeStream, maxBytes, tooLarge)).toString('utf8');
  source.on('error', (error: Error) => decoder.destroy(error));
  try {
    return (await collect(source.pipe(decoder), maxBytes, tooLarge)).toString('utf8');
  } catch (error) {
    if (error instanceof GymApiError) throw error;
    response.cancel();
    throw fail(`the ${coding} body cannot be decoded (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  } finally {
    decoder.destroy();
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function errorMessage(kind: ErrorKind, response: Exchange, operation: Operation<unknown>, message: string | null | undefined, isJson: boolean): string {
  // A body that is not JSON (an HTML page from a proxy) is described, never shown.
  const said = message ? clip(message) : isJson ? undefined : describeContentType(response);
  const { status } = response;
  switch (kind) {
    case 'unauthorized':
      // Only the API itself (a 401, or its error body) speaks of the key; a
      // firewall or gateway in front of it answers 403 with a page of its own.
      // In a batch, the line names the id it was about, as every other failure's does.
      if (status === 401 || typeof message === 'string')
        return `${operation.id === undefined ? '' : `${operation.subject}: `}${said ?? SPEC_MESSAGES.unauthorized}: the server refused the API key`;
      return `${operation.subject}: access was denied by something in front of the API, not by the API (${describeContentType(response)})`;
    case 'not_found':
      if (typeof message !== 'string' && status === 404) {
        return `${operation.subject}: not found, and the answer is not the API's (${describeContentType(response)}): the base URL or its path prefix (such as /api/v1) is probably wrong`;
      }
      return `${operation.subject}: ${said ?? SPEC_MESSAGES.notFound}`;
    case 'unavailable':
      if (status === 429) return `${operation.subject}: rate limited by the server${said ? `: ${said}` : ''}`;
      return `${operation.subject}: the server is unavailable: ${said ?? (response.statusText || `HTTP ${status}`)}`;
    default:
      if (status >= 300 && status < 400) {
        const location = response.headers.get('location');
        return `${operation.subject}: the server answered with a redirect${location ? ` to ${clip(location)}` : ''}, which gymctl does not follow`;
      }
      return `${operation.subject}: unexpected HTTP status ${status}${said ? `: ${said}` : ''}`;
  }
}

/** What the answer means: the validated data, or the failure it reports. */
export function interpret<T>(response: Exchange, text: string, operation: Operation<T>): ApiResponse<T> {
  const { status } = response;
  if (nestsDeeperThan(text)) {
    throw new GymApiError('invalid_response', `${operation.subject}: the response nests deeper than ${MAX_JSON_DEPTH} levels`, {
      status,
      correlationId: headerCorrelationId(response.headers),
      id: operation.id,
      headers: response.headers,
    });
  }
  let json: unknown;
  let isJson = true;
  try {
    json = parseJsonExact(text);
  } catch {
    isJson = false;
  }
  // The error body is looked for only where an error can be: a success with `data` is just data.
  const isSuccess = status >= 200 && status < 300;
  const maybeError = isJson && (!isSuccess || (isObject(json) && !('data' in json)));
  const errorBody = maybeError ? errorBodySchema.safeParse(json) : undefined;
  const message = errorBody?.success && typeof errorBody.data.message === 'string' ? errorBody.data.message : undefined;
  const correlationId =
    (errorBody?.success && typeof errorBody.data.correlationId === 'string' ? clip(errorBody.data.correlationId) : undefined) ?? headerCorrelationId(response.headers);
  const meta = { status, correlationId, id: operation.id, headers: response.headers };

  // The spec fixes no status codes, not even for success: a 2xx carrying
  // the spec's error body without `data` is an error all the same.
  const isSpecError = isObject(json) && !('data' in json) && (message === SPEC_MESSAGES.unauthorized || message === SPEC_MESSAGES.notFound);
  if (!isSuccess || isSpecError) {
    const kind = classifyStatus(status, message);
    const retryable = RETRYABLE_STATUSES.has(status);
    throw new GymApiError(kind, errorMessage(kind, response, operation, isJson ? message : undefined, isJson), {
      ...meta,
      retryable,
      retryAfterMs: retryable ? parseRetryAfter(response.headers.get('retry-after')) : undefined,
      reason: status === 429 ? 'rate_limited' : kind === 'unavailable' ? 'server_error' : undefined,
      serverMessage: message === undefined ? undefined : clip(message),
    });
  }
  if (operation.raw || !operation.schema) return { data: undefined as T, rawData: text, status, correlationId };
  if (text.trim() === '') throw new GymApiError('invalid_response', `${operation.subject}: the server sent an empty response`, meta);
  if (!isJson) {
    throw new GymApiError('invalid_response', `${operation.subject}: the response is not JSON (${describeContentType(response)})`, meta);
  }
  const parsed = z.safeParse(operation.schema, json, { reportInput: true });
  if (!parsed.success) {
    throw new GymApiError('invalid_response', `${operation.subject}: unexpected response: ${formatIssues(parsed.error.issues, operation.schema)}`, meta);
  }
  return { data: parsed.data.data, rawData: rawMember(text, 'data') ?? 'null', status, correlationId };
}
