// A failed tool call of `gymctl mcp` as a model reads it (src/mcp/failures.ts): the next step it is told, and the
// fields it can act on. A wrong next step sends a model (and its user) the wrong way: restarting a server over a typo.
import type http from 'node:http';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { GymApiError, GymctlError } from '../../src/api/errors.js';
import { usageError } from '../../src/failures.js';
import { asFailure, callTimedOut, failureResult, nextStep, type ToolFailure, toolFailure } from '../../src/mcp/failures.js';
import { fitAnswer, type Truncated } from '../../src/mcp/fit.js';
import { OPERATIONS, academy } from '../../src/operations/index.js';
import { inProcessMcp } from '../helpers/mcp.js';
import { httpServer } from '../helpers/servers.js';
import { batchName, toolName, toolsOf } from '../../src/mcp/tools.js';

const GET_ACADEMY = toolName(academy);

const KEY = 'test_key_0123456789abcdef';

describe('the next step a model is told', () => {
  it("a model's bad id is told to fix the call, never to restart the MCP server", () => {
    const failure = usageError('"abc" is not an id');
    expect(nextStep(failure)).toMatch(/^The arguments were refused before any request: ids are positive whole numbers/);
    expect(toolFailure(failure, KEY).next).toBe(nextStep(failure));
    expect(toolFailure(failure, KEY).next).not.toContain('restart');
  });

  it("settings that failed when the server started are told as such, with a restart after the user's fix", () => {
    const failure = usageError('the profile "work" does not exist');
    expect(nextStep(failure, true)).toMatch(/^gymctl's settings could not be used when this MCP server started.*restart this MCP server/);
    expect(toolFailure(failure, KEY, true).next).toBe(nextStep(failure, true));
    // Only a usage failure is about the settings: a refused key at start is still about the key.
    expect(nextStep(new GymApiError('unauthorized', 'refused'), true)).toMatch(/^The API key was missing or refused/);
  });

  it('an unknown id is told to check the id; an unknown path, the base URL', () => {
    expect(nextStep(new GymApiError('not_found', 'academy 7: not found', { id: 7 }))).toMatch(/^It does not exist or is outside this key's scope: check the id/);
    expect(nextStep(new GymApiError('not_found', 'not found'))).toMatch(/^The API does not know this: check the base URL/);
  });

  it("a 404 that is not the API's (no error body) is told as a wrong base URL, never as a refusal in the API's words or a retry", () => {
    const next = nextStep(new GymApiError('invalid_response', "academy 7: the 404 answer (an HTML page) is not the API's", { id: 7, status: 404 }));
    expect(next).toMatch(/base URL this server was started with is probably wrong/);
    expect(next).not.toMatch(/in its own words|try again/);
  });

  it('a rate limit says how long to wait when the server said so', () => {
    expect(nextStep(new GymApiError('unavailable', 'slow down', { reason: 'rate_limited', retryAfterMs: 2500 }))).toBe('The API is rate limiting: wait 3 s before calling again.');
    expect(nextStep(new GymApiError('unavailable', 'slow down', { reason: 'rate_limited' }))).toBe('The API is rate limiting: wait a little before calling again.');
  });

  it("a timeout, an unreachable API, a refusal, a gateway's page, a cancel and a bug each get their own step", () => {
    expect(nextStep(new GymApiError('unavailable', 'late', { reason: 'timeout' }))).toMatch(/^The API did not answer in time.*--call-timeout/);
    expect(nextStep(new GymApiError('unavailable', 'down', { reason: 'server_error' }))).toMatch(/^The API could not be reached or is unavailable.*gymctl doctor/);
    expect(nextStep(new GymApiError('unavailable', 'down'))).toMatch(/^The API could not be reached/);
    for (const status of [400, 499]) {
      expect(nextStep(new GymApiError('invalid_response', 'no', { status }))).toBe(
        `The API refused the request (HTTP ${status}), in its own words in the message. gymctl sends only the documented GETs, so retrying will not help: tell the user, with the correlation ID.`,
      );
    }
    for (const status of [300, 399])
      expect(nextStep(new GymApiError('invalid_response', 'moved', { status }))).toMatch(new RegExp(`^The API answered with a redirect \\(HTTP ${status}\\)`));
    for (const status of [undefined, 200, 299, 500, 502]) {
      expect(nextStep(new GymApiError('invalid_response', 'html', { status })), String(status)).toMatch(/^The API answered with something that is not its JSON/);
    }
    expect(nextStep(new GymApiError('aborted', 'stop'))).toBe('The call was cancelled before it finished.');
    expect(nextStep(asFailure(new TypeError('oops')))).toMatch(/^Something unexpected went wrong in gymctl.*gymctl mcp --debug/);
  });
});

describe("a failure's fields", () => {
  it('says which id failed, as the text of the id, 64-bit ids included', () => {
    expect(toolFailure(new GymApiError('not_found', 'x', { id: 42 }), KEY).id).toBe('42');
    expect(toolFailure(new GymApiError('not_found', 'x', { id: 12345678901234567890n }), KEY).id).toBe('12345678901234567890');
    expect(toolFailure(new GymApiError('not_found', 'x'), KEY).id).toBeNull();
  });

  it('says how many seconds to wait when the server said so, and nothing when it did not', () => {
    expect(toolFailure(new GymApiError('unavailable', 'x', { reason: 'rate_limited', retryAfterMs: 1200 }), KEY).retryAfterSeconds).toBe(2);
    expect(toolFailure(new GymApiError('unavailable', 'x', { reason: 'rate_limited' }), KEY)).not.toHaveProperty('retryAfterSeconds');
  });

  it('keeps the key and control characters out of the message and the correlation ID', () => {
    const failure = toolFailure(new GymApiError('unauthorized', `bad key ${KEY}\u001b[2J`, { correlationId: `c-${KEY}`, status: 401 }), KEY);
    expect(failure).toMatchObject({ kind: 'unauthorized', status: 401, correlationId: 'c-[redacted]' });
    expect(failure.message).toBe('bad key [redacted]^[[2J');
    expect(toolFailure(new GymApiError('unauthorized', 'no key'), undefined)).toMatchObject({ message: 'no key', correlationId: null, status: null });
  });

  it('is handed to the model as an error result whose text is the failure as JSON', () => {
    const failure = toolFailure(new GymApiError('not_found', 'academy 7: not found', { id: 7, status: 404 }), KEY);
    const result = failureResult(failure);
    expect(result.isError).toBe(true);
    expect(result.content).toHaveLength(1);
    expect(result.content[0]!.type).toBe('text');
    expect(JSON.parse(result.content[0]!.text)).toEqual({ error: failure });
  });

  it('keeps a failure of gymctl as it is, and makes anything else thrown an unexpected one', () => {
    const failure = new GymApiError('not_found', 'x');
    expect(asFailure(failure)).toBe(failure);
    const other = asFailure(new Error('boom'));
    expect(other).toBeInstanceOf(GymctlError);
    expect(other).toMatchObject({ kind: 'internal', message: 'unexpected error: boom' });
  });
});

describe("a call past the server's time limit", () => {
  it('is told as the API not answering in time, for the same id, and not as a cancel', () => {
    const aborted = new GymApiError('aborted', 'academy 7: aborted', { id: 7, correlationId: 'c-1' });
    const failure = callTimedOut(aborted, 1500);
    expect(failure).toMatchObject({ kind: 'unavailable', reason: 'timeout', id: 7, correlationId: 'c-1' });
    expect(failure.message).toBe("academy 7: no answer within 1.5 s, this server's time limit for one call (retries included)");
    expect(failure.cause).toBe(aborted);
    expect(nextStep(failure)).toMatch(/^The API did not answer in time/);
    expect(callTimedOut(new GymApiError('aborted', 'aborted: aborted here'), 2000).message).toMatch(/^aborted: aborted here: no answer within 2 s/);
  });
});

describe("each cause's next step, in full, as the API's own failures make it", () => {
  /** The failure a tool answers for `academy 1`, against an API answering every request with `answer`. */
  async function failureFrom(answer: (response: http.ServerResponse) => void) {
    const base = await httpServer((_request, response) => answer(response));
    const mcp = await inProcessMcp(OPERATIONS, base, KEY);
    try {
      const result = (await mcp.client.callTool({ name: GET_ACADEMY, arguments: { academyId: '1' } })) as CallToolResult;
      expect(result.isError).toBe(true);
      return JSON.parse((result.content as Array<{ text: string }>)[0]!.text).error as ToolFailure;
    } finally {
      await mcp.close();
    }
  }
  const json =
    (status: number, body: unknown, headers: Record<string, string> = {}) =>
    (response: http.ServerResponse) => {
      response.writeHead(status, { 'Content-Type': 'application/json', ...headers });
      response.end(JSON.stringify(body));
    };

  it('a body over 10 MiB says it was too large for gymctl, which limit, and that retrying will not help', async () => {
    const failure = await failureFrom((response) => {
      response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(11 * 1024 * 1024) });
      response.end();
    });
    expect(failure).toMatchObject({ kind: 'invalid_response', message: 'academy 1: the response body is larger than 10 MiB' });
    expect(failure.next).toBe(
      "The API's answer was larger than gymctl's limit on one response body (10 MiB), which is not --max-answer (that limits what this server returns) and no setting of this server changes: retrying will not help. Tell the user which record it was.",
    );
  });

  it('a redirect says the base URL or a proxy sends requests elsewhere, never to try again later', async () => {
    const failure = await failureFrom((response) => {
      response.writeHead(302, { Location: 'https://login.example/sso', 'Content-Type': 'text/html' });
      response.end('<html>moved</html>');
    });
    expect(failure).toMatchObject({ kind: 'invalid_response', status: 302 });
    expect(failure.next).toBe(
      'The API answered with a redirect (HTTP 302), which gymctl does not follow: the base URL this server was started with, or a proxy in between, sends requests elsewhere. Retrying will not help: tell the user to check the base URL (`gymctl doctor`).',
    );
    expect(failure.next).not.toMatch(/try again/);
  });

  it('a refused key says to log in and restart, and that retrying will not help', async () => {
    const failure = await failureFrom(json(401, { message: 'Invalid API key', correlationId: 'c-1' }));
    expect(failure).toMatchObject({ kind: 'unauthorized', status: 401 });
    expect(failure.next).toBe(
      'The API key was missing or refused: tell the user to run `gymctl auth login` (or `gymctl auth status` to see which key is in use), then restart this MCP server. Retrying will not help.',
    );
  });

  it('an id the API does not know says to check the id against whoami', async () => {
    const failure = await failureFrom(json(404, { message: 'Resource not found', correlationId: 'c-2' }));
    expect(failure).toMatchObject({ kind: 'not_found', id: '1' });
    expect(failure.next).toBe("It does not exist or is outside this key's scope: check the id (whoami lists what this key can see). Retrying will not help.");
  });

  it('a rate limit says how long to wait', async () => {
    const failure = await failureFrom(json(429, { message: 'Too many requests', correlationId: 'c-3' }, { 'Retry-After': '7' }));
    expect(failure).toMatchObject({ kind: 'unavailable', retryAfterSeconds: 7 });
    expect(failure.next).toBe('The API is rate limiting: wait 7 s before calling again.');
  });

  it('a call past its time limit says the API did not answer in time, and which limits the user can raise', () => {
    const failure = callTimedOut(new GymApiError('aborted', 'academy 1: aborted', { id: 1 }), 20_000);
    expect(nextStep(failure)).toBe(
      'The API did not answer in time: try again later; if it keeps happening, the user can raise `--call-timeout` (and `--timeout`, for each request) in the MCP server configuration.',
    );
  });

  it(`${toolsOf([academy]).at(-1)!.name}'s cap names the cap and how to page past it, never --max-answer, which does not lift it`, () => {
    const how = toolsOf([academy]).at(-1)!.shortening({});
    const data = Array.from({ length: 500 }, (_, i) => ({ id: String(i + 1) }));
    const { truncated } = fitAnswer({ data, notFound: [] }, 1024 * 1024, how, [{ ids: ['501', '502'], reason: 'cap' }]).structuredContent as { truncated: Truncated };
    expect(truncated.reason).toBe('cap');
    expect(truncated.note).toBe('This tool fetches at most 500 records in one call, and 2 more were listed: it holds the first 500 of its 502 records.');
    expect(truncated.next).toBe(
      `Call ${batchName(academy)} again with the ids in omittedIds, at most 20 at a time: that is how to page past this tool's cap of 500 records, which --max-answer does not lift.`,
    );
  });
});
