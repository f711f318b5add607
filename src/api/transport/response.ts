/**
 * Reading and interpreting an answer: the body under a size cap, then what
 * it means. A success is parsed and validated against the operation's
 * schema; anything else becomes a GymApiError of the right kind, with a
 * message that says what the server said (never an HTML page it sent).
 */
import * as z from 'zod/mini';
import { rawMember } from '../../json/raw.js';
import { GymApiError, SPEC_MESSAGES, classifyStatus, type ErrorKind } from '../errors.js';
import { errorBodySchema } from '../schemas.js';
import { formatIssues } from '../validation.js';
import { RETRYABLE_STATUSES, parseRetryAfter } from './retry.js';
import type { Exchange } from './senders.js';
import type { ApiResponse, Operation } from './types.js';

const MESSAGE_LIMIT = 300;
export const clip = (text: string) => (text.length > MESSAGE_LIMIT ? `${text.slice(0, MESSAGE_LIMIT)}…` : text);

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

export function headerCorrelationId(headers: Exchange['headers']): string | undefined {
  return headers.get('x-correlation-id') ?? headers.get('x-request-id') ?? undefined;
}

export function describeContentType(response: Exchange): string {
  const type = response.headers.get('content-type');
  return type ? `content type ${type.split(';')[0]!.trim()}` : 'no content type';
}

/** The body as text, refused (and the connection dropped) past `maxBytes`. */
export async function readBody(response: Exchange, maxBytes: number, abort: () => void, operation: Operation<unknown>): Promise<string> {
  const tooLarge = () => {
    abort();
    return new GymApiError('invalid_response', `${operation.subject}: the response body is larger than ${formatBytes(maxBytes)}`, {
      status: response.status,
      correlationId: headerCorrelationId(response.headers),
      id: operation.id,
    });
  };
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body) {
    total += chunk.byteLength;
    if (total > maxBytes) {
      response.cancel();
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
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
      return `${said ?? SPEC_MESSAGES.unauthorized}: the server refused the API key`;
    case 'not_found':
      return `${operation.subject}: ${said ?? SPEC_MESSAGES.notFound}`;
    case 'unavailable':
      if (status === 429) return `${operation.subject}: rate limited by the server${said ? ` (${said})` : ''}`;
      return `${operation.subject}: the server is unavailable (${said ?? (response.statusText || `HTTP ${status}`)})`;
    default:
      if (status >= 300 && status < 400) {
        const location = response.headers.get('location');
        return `${operation.subject}: the server answered with a redirect${location ? ` to ${clip(location)}` : ''}, which gymctl does not follow`;
      }
      return `${operation.subject}: unexpected HTTP status ${status}${said ? ` (${said})` : ''}`;
  }
}

/** What the answer means: the validated data, or the failure it reports. */
export function interpret<T>(response: Exchange, text: string, operation: Operation<T>): ApiResponse<T> {
  const { status } = response;
  let json: unknown;
  let isJson = true;
  try {
    json = JSON.parse(text);
  } catch {
    isJson = false;
  }
  const errorBody = isJson ? errorBodySchema.safeParse(json) : undefined;
  const message = errorBody?.success ? errorBody.data.message : undefined;
  const correlationId =
    (errorBody?.success && typeof errorBody.data.correlationId === 'string' ? errorBody.data.correlationId : undefined) ??
    headerCorrelationId(response.headers);
  const meta = { status, correlationId, id: operation.id };

  // The spec fixes no status codes, not even for success: a 2xx carrying
  // the spec's error body without `data` is an error all the same.
  const isSuccess = status >= 200 && status < 300;
  const isSpecError =
    isObject(json) && !('data' in json) && (message === SPEC_MESSAGES.unauthorized || message === SPEC_MESSAGES.notFound);
  if (!isSuccess || isSpecError) {
    const kind = classifyStatus(status, message);
    const retryable = RETRYABLE_STATUSES.has(status);
    throw new GymApiError(kind, errorMessage(kind, response, operation, isJson ? message : undefined, isJson), {
      ...meta,
      retryable,
      retryAfterMs: retryable ? parseRetryAfter(response.headers.get('retry-after')) : undefined,
      reason: status === 429 ? 'rate_limited' : kind === 'unavailable' ? 'server_error' : undefined,
    });
  }
  if (operation.raw || !operation.schema) return { data: undefined as T, rawData: text, status, correlationId };
  if (!isJson) {
    throw new GymApiError('invalid_response', `${operation.subject}: the response is not JSON (${describeContentType(response)})`, meta);
  }
  const parsed = z.safeParse(operation.schema, json, { reportInput: true });
  if (!parsed.success) {
    throw new GymApiError('invalid_response', `${operation.subject}: unexpected response: ${formatIssues(parsed.error.issues, operation.schema)}`, meta);
  }
  return { data: parsed.data.data, rawData: rawMember(text, 'data') ?? 'null', status, correlationId };
}
