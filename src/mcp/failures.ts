/** A failed tool call as a model reads it: a tool result with isError, one JSON object with the next step; never the key. */
import { GymApiError, GymctlError } from '../api/errors.js';
import { redactText } from '../api/transport/redact.js';
import { UnexpectedError } from '../failures.js';
import { sanitizeLine } from '../output/sanitize.js';

export type ToolFailure = ReturnType<typeof toolFailure>;

/** What a model should do next, by kind and reason; `atStart`: the server's own settings failed, not the call. */
export function nextStep(failure: GymctlError, atStart = false): string {
  if (atStart && failure.kind === 'usage')
    return "gymctl's settings could not be used when this MCP server started (the message says which, and how to fix them): tell the user, then restart this MCP server. Retrying will not help.";
  switch (failure.kind) {
    case 'unauthorized':
      return 'The API key was missing or refused: tell the user to run `gymctl auth login` (or `gymctl auth status` to see which key is in use), then restart this MCP server. Retrying will not help.';
    case 'not_found':
      return failure.id === undefined
        ? 'The API does not know this: check the base URL the server was started with.'
        : `It does not exist or is outside this key's scope: check the id (whoami lists what this key can see). Retrying will not help.`;
    case 'unavailable':
      if (failure.reason === 'rate_limited') {
        return failure.retryAfterMs === undefined
          ? 'The API is rate limiting: wait a little before calling again.'
          : `The API is rate limiting: wait ${Math.ceil(failure.retryAfterMs / 1000)} s before calling again.`;
      }
      if (failure.reason === 'timeout')
        return 'The API did not answer in time: try again later; if it keeps happening, the user can raise `--call-timeout` (and `--timeout`, for each request) in the MCP server configuration.';
      return 'The API could not be reached or is unavailable: try again later; if it persists, tell the user to run `gymctl doctor`.';
    case 'invalid_response': {
      // The transport's own words for a body over its limit (response.ts), whatever the status.
      const limit = /the response body is larger than ([0-9]+ (?:MiB|KiB|bytes))/.exec(failure.message)?.[1];
      if (limit)
        return `The API's answer was larger than gymctl's limit on one response body (${limit}), which is not --max-answer (that limits what this server returns) and no setting of this server changes: retrying will not help. Tell the user which record it was.`;
      if (failure.status !== undefined && failure.status >= 300 && failure.status < 400)
        return `The API answered with a redirect (HTTP ${failure.status}), which gymctl does not follow: the base URL this server was started with, or a proxy in between, sends requests elsewhere. Retrying will not help: tell the user to check the base URL (\`gymctl doctor\`).`;
      if (failure.status === 404)
        return "The answer was not the API's (a 404 without its error body): the base URL this server was started with is probably wrong. Tell the user to run `gymctl doctor`; retrying will not help.";
      if (failure.status !== undefined && failure.status >= 400 && failure.status < 500)
        return `The API refused the request (HTTP ${failure.status}), in its own words in the message. gymctl sends only the documented GETs, so retrying will not help: tell the user, with the correlation ID.`;
      return 'The API answered with something that is not its JSON (a gateway or proxy page, say): try again later; if it persists, tell the user to run `gymctl doctor` to check the base URL.';
    }
    case 'usage':
      return 'The arguments were refused before any request: ids are positive whole numbers, sent as strings of digits ("42"). Fix the call and try again.';
    case 'aborted':
      return 'The call was cancelled before it finished.';
    default:
      return 'Something unexpected went wrong in gymctl: tell the user, and suggest running `gymctl mcp --debug` to see details on stderr.';
  }
}

export const asFailure = (error: unknown): GymctlError => (error instanceof GymctlError ? error : new UnexpectedError(error));

export function callTimedOut(failure: GymctlError, ms: number): GymctlError {
  const subject = failure.message.replace(/: aborted$/, '');
  return new GymApiError('unavailable', `${subject}: no answer within ${ms / 1000} s, this server's time limit for one call (retries included)`, {
    reason: 'timeout',
    id: failure.id,
    correlationId: failure.correlationId,
    cause: failure,
  });
}

/** Each string with the key redacted and controls shown (`^[`): no escape sequence or forged line reaches the client. */
export function toolFailure(failure: GymctlError, apiKey: string | undefined, atStart = false) {
  const clean = (text: string) => sanitizeLine(apiKey ? redactText(apiKey, text) : text);
  return {
    message: clean(failure.message),
    kind: failure.kind,
    correlationId: failure.correlationId === undefined ? null : clean(failure.correlationId),
    status: failure.status ?? null,
    id: failure.id === undefined ? null : String(failure.id),
    ...(failure.retryAfterMs !== undefined ? { retryAfterSeconds: Math.ceil(failure.retryAfterMs / 1000) } : {}),
    next: nextStep(failure, atStart),
  };
}

export function failureResult(failure: ToolFailure) {
  return { isError: true, content: [{ type: 'text' as const, text: JSON.stringify({ error: failure }) }] };
}
