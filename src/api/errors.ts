/** The library's failures (GymApiError on GymctlError), their kinds, and how a status is classified; exit codes are the CLI's (failures.ts). */
export const ERROR_KINDS = ['unauthorized', 'not_found', 'unavailable', 'invalid_response', 'usage', 'internal', 'aborted'] as const;

export type ErrorKind = (typeof ERROR_KINDS)[number];

/** What tells two failures of one kind apart, for callers that care (a timeout is not a refused connection). */
export type FailureReason = 'timeout' | 'connection_refused' | 'connection_reset' | 'dns' | 'tls' | 'proxy' | 'rate_limited' | 'server_error' | 'network';

export interface FailureOptions {
  status?: number | undefined;
  correlationId?: string | undefined;
  /** The id the failed request was about, when it was about one. */
  id?: number | bigint | undefined;
  cause?: unknown;
  /** Another attempt may succeed (a 503, a dropped connection). */
  retryable?: boolean | undefined;
  /** How long the server asked to wait before another attempt (Retry-After). */
  retryAfterMs?: number | undefined;
  reason?: FailureReason | undefined;
  /** The server's own `message`, as sent (clipped), when the failure is an answer of the server's. */
  serverMessage?: string | undefined;
  /** The headers of the response the failure came with, when it came with one (Retry-After, rate limits, the correlation ID). */
  headers?: ResponseHeaders | undefined;
  /** For a raw operation (`gymctl api`), that response's status line and headers as received. */
  head?: ResponseHead | undefined;
}

/** Response headers, read by name (any case), as fetch's Headers reads them. */
export interface ResponseHeaders {
  get(name: string): string | null;
}

/** A response's status line and headers as received, for `gymctl api --include`: latin1, one character per byte sent. */
export interface ResponseHead {
  /** `HTTP/1.1`: as the server wrote it through node:http; through undici or fetch, which do not say, `HTTP/1.1`, the only version gymctl asks for. */
  version: string;
  status: number;
  /** The reason phrase as sent (`OK`), or '' when there was none. */
  statusText: string;
  /** Name and value pairs in the order received, names spelled as sent, repeated headers (Set-Cookie) each on its own. */
  headers: ReadonlyArray<readonly [name: string, value: string]>;
}

/** The base of every gymctl failure. */
export class GymctlError extends Error {
  override readonly name: string = 'GymctlError';
  declare readonly kind: ErrorKind;
  declare readonly status: number | undefined;
  declare readonly correlationId: string | undefined;
  declare readonly id: number | bigint | undefined;
  declare readonly retryable: boolean;
  declare readonly retryAfterMs: number | undefined;
  declare readonly reason: FailureReason | undefined;
  declare readonly serverMessage: string | undefined;
  declare readonly headers: ResponseHeaders | undefined;
  declare readonly head: ResponseHead | undefined;

  constructor(kind: ErrorKind, message: string, options: FailureOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    const { status, correlationId, id, retryable = false, retryAfterMs, reason, serverMessage, headers, head } = options;
    Object.assign(this, { kind, status, correlationId, id, retryable, retryAfterMs, reason, serverMessage, headers, head });
  }

  /** A copy of this failure, of the same class, with other words or other fields. */
  with(changes: FailureOptions & { message?: string }): this {
    const copy = Object.create(Object.getPrototypeOf(this)) as this;
    Object.defineProperties(copy, Object.getOwnPropertyDescriptors(this));
    for (const [name, value] of Object.entries(changes)) {
      Object.defineProperty(copy, name, { value, writable: true, configurable: true, enumerable: name !== 'message' && name !== 'cause' });
    }
    return copy;
  }
}

/** `not_found` → `NotFound`: the part of a kind's guard name after `is`. */
type Pascal<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Capitalize<Head>}${Pascal<Tail>}` : Capitalize<S>;

/** One guard per kind, `GymApiError.isNotFound(error)`, made from ERROR_KINDS: a new kind gets its guard. */
export type KindGuards = { readonly [K in ErrorKind as `is${Pascal<K>}`]: (error: unknown) => error is GymApiError & { readonly kind: K } };

/** Marks a GymApiError on its prototype: the guards check it, not `instanceof`, to hold across copies of the package. */
const BRAND = Symbol.for('gymctl.GymApiError');

function isApiError(error: unknown, kind?: ErrorKind): boolean {
  if (typeof error !== 'object' || error === null || (error as { [BRAND]?: unknown })[BRAND] !== true) return false;
  return kind === undefined || (error as { kind?: unknown }).kind === kind;
}

const pascal = (kind: string) => kind.replace(/(?:^|_)([a-z])/g, (_, letter: string) => letter.toUpperCase());

/** GymctlError with the kind guards as statics, which GymApiError inherits. */
const GuardedError = Object.assign(
  class extends GymctlError {},
  Object.fromEntries(ERROR_KINDS.map((kind) => [`is${pascal(kind)}`, (error: unknown) => isApiError(error, kind)])),
) as unknown as typeof GymctlError & KindGuards;

/** A failure of the API client. Tell kinds apart by `error.kind` or the narrowing guards: `GymApiError.is(error, 'not_found')`, `GymApiError.isNotFound(error)`. */
export class GymApiError extends GuardedError {
  override readonly name = 'GymApiError';

  /** Whether `error` is a GymApiError (of `kind`, when given), from this copy of the package or another. */
  static is<K extends ErrorKind = ErrorKind>(error: unknown, kind?: K): error is GymApiError & { readonly kind: K } {
    return isApiError(error, kind);
  }
}
Object.defineProperty(GymApiError.prototype, BRAND, { value: true });

/** A request stopped by the caller's signal: kind `aborted`, the reason as `cause`; a reason that is a gymctl failure (Ctrl-C, `close()`) as it is. */
export function abortedError(reason: unknown, subject: string, id?: number | bigint): GymctlError {
  if (reason instanceof GymctlError) return reason;
  return new GymApiError('aborted', `${subject}: aborted`, { cause: reason, id });
}

/** A request refused before anything was sent (bad arguments, settings or input): the one kind of usage error, the library's and the CLI's. */
export const usageError = (message: string, options: FailureOptions = {}) => new GymApiError('usage', message, options);

/** The spec's message strings (§7), the fallback when the status is not telling. */
export const SPEC_MESSAGES = {
  unauthorized: 'Unauthorized',
  notFound: 'Resource not found',
} as const;

/** The kind of a non-success response: by status, else by the spec's message strings, as the spec fixes no status codes (§7 rule 2). */
export function classifyStatus(status: number, message: string | null | undefined): ErrorKind {
  if (status === 401 || status === 403) return 'unauthorized';
  // A 404 without the API's error body is not the API's: the base URL or its path prefix is wrong, and nothing is "not found".
  if (status === 404) return message == null ? 'invalid_response' : 'not_found';
  if (status >= 500 || status === 429 || status === 408) return 'unavailable';
  if (message === SPEC_MESSAGES.unauthorized) return 'unauthorized';
  if (message === SPEC_MESSAGES.notFound) return 'not_found';
  return 'invalid_response';
}
