/** The CLI's failures, beside the library's (api/errors.ts), and the one table of exit codes, by `kind`. */
import { type ErrorKind, type FailureOptions, GymctlError } from './api/errors.js';
import { HomeFolderError } from './files/system.js';

/** A command refused before anything was sent: bad arguments, settings or input (the library's usage error, the one kind there is). */
export { usageError } from './api/errors.js';

/** Something no part of gymctl foresaw (a bug, or the environment): one line, and its stack with --debug. */
export class UnexpectedError extends GymctlError {
  override readonly name = 'UnexpectedError';
  constructor(cause: unknown, options: FailureOptions = {}) {
    super('internal', `unexpected error: ${cause instanceof Error ? cause.message : String(cause)}`, { ...options, cause });
  }

  /** The stack of what was thrown, for --debug. */
  get causeStack(): string | undefined {
    return this.cause instanceof Error ? this.cause.stack : undefined;
  }
}

/** A short line of what went wrong, then the ways to fix it, a line each, in gymctl's words, never a server's. */
export class FailureWithFix extends GymctlError {
  override readonly name = 'FailureWithFix';
  readonly fix: readonly string[];
  constructor(kind: ErrorKind, message: string, fix: readonly string[], options: FailureOptions = {}) {
    super(kind, message, options);
    this.fix = fix;
  }
}

/** SIGBREAK: Ctrl-Break in a Windows console, an interrupt as Ctrl-C is (Node emits it on Windows only). */
export type InterruptSignal = 'SIGINT' | 'SIGTERM' | 'SIGBREAK';

/** The user stopped gymctl (Ctrl-C or Ctrl-Break, or SIGTERM): the reason every abort carries. */
export class Interrupted extends GymctlError {
  override readonly name = 'Interrupted';
  constructor(readonly signal: InterruptSignal = 'SIGINT') {
    super('internal', signal === 'SIGTERM' ? 'terminated' : 'interrupted');
  }
}

/** Failures a batch reported as they happened: only the first one's exit code is left to set. */
export class AlreadyReported extends GymctlError {
  override readonly name = 'AlreadyReported';
  constructor(kind: ErrorKind) {
    super(kind, `failed (${kind})`);
  }
}

/** Any thrown value as a gymctl failure: unknown throws become an UnexpectedError that keeps them. */
export function toFailure(error: unknown, options: FailureOptions = {}): GymctlError {
  if (error instanceof GymctlError) return error;
  // No home folder to keep files in: the environment's, said as such (exit 1), not as something unforeseen.
  if (error instanceof HomeFolderError) return new GymctlError('internal', error.message, { ...options, cause: error });
  return new UnexpectedError(error, options);
}

/** The exit codes, with what each means: the one table `help exit-codes` and the README show. */
export const EXIT_CODES = [
  { code: 0, kind: undefined, when: 'success (also when a reader such as head closes stdout early)' },
  { code: 1, kind: 'internal', when: 'anything unexpected; also a config file that cannot be read, or a --jq filter that fails on the data' },
  { code: 2, kind: 'usage', when: 'bad arguments, an invalid id, an unsafe base URL or setting, no base URL: nothing was sent' },
  { code: 3, kind: 'not_found', when: "the academy or member does not exist, in the API's own 404 (or the key cannot see it, where the server says so)" },
  { code: 4, kind: 'unauthorized', when: 'no key, a keyring that is locked, cannot be reached or is not installed, or the server refused the key (which stops a batch)' },
  { code: 5, kind: 'unavailable', when: 'network failure, timeout, rate limit or server error that outlasted the retries' },
  {
    code: 6,
    kind: 'invalid_response',
    when: "the body was not JSON, too large, did not match the spec, or had a status the spec does not explain; a 404 that is not the API's (a wrong base URL)",
  },
  { code: 130, kind: undefined, when: 'interrupted (Ctrl-C)' },
  { code: 143, kind: undefined, when: 'terminated (SIGTERM)' },
] as const satisfies ReadonlyArray<{ code: number; kind: ErrorKind | undefined; when: string }>;

// `aborted` is the library's: the CLI's own aborts carry an Interrupted reason, which is thrown as it is. Were one to reach the CLI, it ends as an interrupt does.
const CODE_OF_KIND = {
  ...Object.fromEntries(EXIT_CODES.filter((row) => row.kind).map((row) => [row.kind, row.code])),
  aborted: 130,
} as Record<ErrorKind, number>;

export const exitCodeOfKind = (kind: ErrorKind): number => CODE_OF_KIND[kind];

/** The exit code a failure ends gymctl with. */
export const exitCodeOf = (failure: GymctlError): number => (failure instanceof Interrupted ? (failure.signal === 'SIGTERM' ? 143 : 130) : exitCodeOfKind(failure.kind));
