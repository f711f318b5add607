/** How a failure is shown on stderr: one line of text, or one line of JSON for scripts. */
import type { GymctlError } from '../api/errors.js';
import { FailureWithFix, UnexpectedError } from '../failures.js';
import type { OutputFormat } from '../config/formats.js';
import { subjectOf } from '../operations/declare.js';
import { whoami } from '../operations/whoami.js';
import { stringifyExact } from '../json/exact.js';
import { headForJson, headForTerminal } from './head.js';
import { escapeJsonForTerminal, sanitizeLine } from './sanitize.js';

/** Where the key and base URL of a run came from, once known: for the next step a failure's message names. */
export interface FailureContext {
  /** `GYMCTL_API_KEY`, `profile "work"`, `the system keyring`… */
  keyOrigin?: string | undefined;
  /** `--base-url`, `GYMCTL_BASE_URL`, `profile "work"`… */
  baseUrlOrigin?: string | undefined;
  /** The base URL itself. */
  baseUrl?: string | undefined;
  /** ` --profile work` where a command it names must name the profile (settings.ts's profileFlag). */
  profileFlag?: string;
}

/** The base URL's host could not be reached: where it came from is the next thing to check. */
const UNREACHED = new Set(['connection_refused', 'dns']);

const ME = subjectOf(whoami);

/**
 * A failure with its next step: a refused key names where it came from; an unreachable host, where the base URL came
 * from; GET /me not found (which the API always has), or a 404 not the API's, says the base URL or its path prefix is wrong.
 */
export function withNextStep(failure: GymctlError, context: FailureContext): GymctlError {
  const where = context.baseUrl ? ` ${context.baseUrl}${context.baseUrlOrigin ? ` (from ${context.baseUrlOrigin})` : ''}` : '';
  if (failure.kind === 'not_found' && failure.id === undefined && failure.message.startsWith(`${ME}: `) && !failure.message.includes('probably wrong')) {
    return failure.with({ message: `${failure.message}; the API always has ${whoami.path}, so the base URL${where} or its path prefix is probably wrong` });
  }
  // A 404 that is not the API's (response.ts) names the base URL it blames.
  if (failure.kind === 'invalid_response' && failure.status === 404 && where && !failure.message.includes(where)) {
    return failure.with({ message: failure.message.replace('the base URL or', `the base URL${where} or`) });
  }
  if (failure.kind === 'unauthorized' && context.keyOrigin && failure.message.endsWith('the server refused the API key')) {
    return failure.with({ message: `${failure.message} from ${context.keyOrigin}; check it with \`gymctl auth status${context.profileFlag ?? ''}\`` });
  }
  if (failure.reason !== undefined && UNREACHED.has(failure.reason) && context.baseUrlOrigin && !failure.message.includes('the base URL came from')) {
    return failure.with({ message: `${failure.message}; the base URL came from ${context.baseUrlOrigin}` });
  }
  return failure;
}

/** `gymctl: <message> (HTTP <status>, correlation ID <id>)`, leaving out what is unknown. */
export function formatErrorLine(error: GymctlError): string {
  const details = [error.status !== undefined ? `HTTP ${error.status}` : undefined, error.correlationId ? `correlation ID ${error.correlationId}` : undefined].filter(
    (part) => part !== undefined,
  );
  const fix = error instanceof FailureWithFix ? error.fix.map((line) => `  ${sanitizeLine(line)}\n`).join('') : '';
  return `${sanitizeLine(`gymctl: ${error.message}${details.length ? ` (${details.join(', ')})` : ''}`)}\n${fix}`;
}

/** The whole message on one line, its fix included: for JSON, which stays one line. */
const oneLine = (error: GymctlError) => (error instanceof FailureWithFix ? `${error.message}; ${error.fix.join(' ')}` : error.message);

/**
 * `{"error":{"message","correlationId","status","kind","id"}}` on one line (with `head` for `api --include`); `skipped`
 * for an id left out by `--ignore-not-found`; `notTried` when a refused key stopped a batch. `message` is the server's own when it sent one, so scripts can compare it.
 * C1 controls, DEL, bidi and invisible characters are escaped too, so the line is as safe for a terminal as the text.
 */
export function formatErrorJson(error: GymctlError, key: 'error' | 'skipped' = 'error', more: { notTried?: number } = {}): string {
  const line = stringifyExact({
    [key]: {
      message: error.serverMessage ?? oneLine(error),
      correlationId: error.correlationId ?? null,
      status: error.status ?? null,
      kind: error.kind,
      id: error.id ?? null,
      ...(error.head ? { head: headForJson(error.head) } : {}),
      ...more,
    },
  });
  return `${escapeJsonForTerminal(line)}\n`;
}

/**
 * A failure as reported on stderr: text for people (after the head, for `api --include`), one JSON line for scripts (the
 * head inside). An unexpected one says to run with --debug, and with it comes with the stack.
 */
export function formatFailure(failure: GymctlError, format: OutputFormat, debug: boolean): string {
  const unexpected = failure instanceof UnexpectedError;
  const shown = unexpected && !debug ? failure.with({ message: `${failure.message} (run with --debug for details)` }) : failure;
  const text = format === 'table' ? (shown.head ? headForTerminal(shown.head) : '') + formatErrorLine(shown) : formatErrorJson(shown);
  const stack = unexpected && debug ? failure.causeStack : undefined;
  return text + (stack ? `${stack}\n` : '');
}
