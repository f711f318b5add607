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
}

/** Reasons that say the base URL's host could not be reached (refused, or no such name): where it came from is the next thing to check. */
const UNREACHED = new Set(['connection_refused', 'dns']);

/** What messages call the call that every right base URL answers: `GET /me`. */
const ME = subjectOf(whoami);

/**
 * A failure with its next step: a key the server refused names where it
 * came from and the command that shows it; a host that cannot be reached
 * names where the base URL came from; GET /me not found, which the API
 * never answers at its base URL, says the base URL (or its path prefix) is
 * wrong, even when the 404 is the API's own JSON. Batches and single
 * commands alike.
 */
export function withNextStep(failure: GymctlError, context: FailureContext): GymctlError {
  if (failure.kind === 'not_found' && failure.id === undefined && failure.message.startsWith(`${ME}: `) && !failure.message.includes('probably wrong')) {
    const where = context.baseUrl ? ` ${context.baseUrl}${context.baseUrlOrigin ? ` (from ${context.baseUrlOrigin})` : ''}` : '';
    return failure.with({ message: `${failure.message}; the API always has ${whoami.path}, so the base URL${where} or its path prefix is probably wrong` });
  }
  if (failure.kind === 'unauthorized' && context.keyOrigin && failure.message.endsWith('the server refused the API key')) {
    return failure.with({ message: `${failure.message} from ${context.keyOrigin}; check it with \`gymctl auth status\`` });
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
 * `{"error":{"message","correlationId","status","kind","id"}}` on one line,
 * with `head` (the status line and headers, see head.ts) for a failure that
 * carries them: `gymctl api --include`.
 * `message` is the server's message as sent, when the server sent one, so
 * that scripts can compare it (`.error.message == "Resource not found"`);
 * what it was about is in `id`. Otherwise it is gymctl's own message.
 * `key` names what the line reports: `skipped` for an id left out by
 * `--ignore-not-found`, which is a note, not a failure.
 * JSON.stringify escapes C0 controls; C1 controls, DEL, and bidi and
 * invisible characters (U+202E, U+200B, U+2028…) are escaped too, so the
 * line is as safe for a terminal as the text form.
 */
export function formatErrorJson(error: GymctlError, key: 'error' | 'skipped' = 'error'): string {
  const line = stringifyExact({
    [key]: {
      message: error.serverMessage ?? oneLine(error),
      correlationId: error.correlationId ?? null,
      status: error.status ?? null,
      kind: error.kind,
      id: error.id ?? null,
      ...(error.head ? { head: headForJson(error.head) } : {}),
    },
  });
  return `${escapeJsonForTerminal(line)}\n`;
}

/**
 * Text for people (table format), after the head of the answer when the
 * failure carries it (`gymctl api --include`); JSON for scripts (json,
 * ndjson, csv), with the head inside, so that stderr stays one JSON line.
 */
export function formatError(error: GymctlError, format: OutputFormat): string {
  if (format !== 'table') return formatErrorJson(error);
  return (error.head ? headForTerminal(error.head) : '') + formatErrorLine(error);
}

/**
 * A failure as reported on stderr, by the entry point or by a batch as it
 * goes: an unexpected one says to run with --debug, and with --debug it
 * comes with the stack of what was thrown.
 */
export function formatFailure(failure: GymctlError, format: OutputFormat, debug: boolean): string {
  if (!(failure instanceof UnexpectedError)) return formatError(failure, format);
  if (!debug) return formatError(failure.with({ message: `${failure.message} (run with --debug for details)` }), format);
  const stack = failure.causeStack;
  return formatError(failure, format) + (stack ? `${stack}\n` : '');
}
