/**
 * One error family for every failure. `kind` decides the exit code (in the
 * CLI's entry point, the only place that maps it); the rest is what the user
 * needs to act on it.
 */
export const ERROR_KINDS = [
  'unauthorized',
  'not_found',
  'unavailable',
  'invalid_response',
  'usage',
  'internal',
] as const;

export type ErrorKind = (typeof ERROR_KINDS)[number];

export interface GymApiErrorOptions {
  status?: number;
  correlationId?: string;
  /** The id the failed request was about, when it was about one. */
  id?: number;
  cause?: unknown;
}

export class GymApiError extends Error {
  override readonly name = 'GymApiError';
  readonly kind: ErrorKind;
  readonly status: number | undefined;
  readonly correlationId: string | undefined;
  readonly id: number | undefined;

  constructor(kind: ErrorKind, message: string, options: GymApiErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.status = options.status;
    this.correlationId = options.correlationId;
    this.id = options.id;
  }
}

export const usageError = (message: string) => new GymApiError('usage', message);

/** The spec's message strings (§7), the fallback when the status is not telling. */
export const SPEC_MESSAGES = {
  unauthorized: 'Unauthorized',
  notFound: 'Resource not found',
} as const;

/**
 * Picks the kind of a non-success response. Status first, since it is the
 * usual signal; the spec fixes no status codes (§7 rule 2), so the spec's
 * message strings decide when the status does not.
 */
export function classifyStatus(status: number, message: string | null | undefined): ErrorKind {
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 404) return 'not_found';
  if (status >= 500 || status === 429 || status === 408) return 'unavailable';
  if (message === SPEC_MESSAGES.unauthorized) return 'unauthorized';
  if (message === SPEC_MESSAGES.notFound) return 'not_found';
  return 'invalid_response';
}
