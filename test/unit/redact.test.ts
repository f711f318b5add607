// The key kept out of what a server echoes back (src/api/transport/redact.ts): the error line on stderr (text or
// JSON), `api -i`'s head and the --debug trace never show it, and a failure that echoes nothing is handed on as it was.
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/client.js';
import { GymApiError, type ResponseHead } from '../../src/api/errors.js';
import { redactError, redactHead, redactHeaders, redactText } from '../../src/api/transport/redact.js';
import { formatErrorJson } from '../../src/output/errors.js';

const BASE = 'https://api.gym.test';
const KEY = 'test_key_0123456789abcdef';

const client = (apiKey = KEY) => createClient({ baseUrl: BASE, apiKey, userAgent: 'gymctl/test', retries: 0, fetch: (url, init) => globalThis.fetch(url, init) });

async function failure(promise: Promise<unknown>): Promise<GymApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof GymApiError) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

const head = (statusText: string, headers: [string, string][] = [['Content-Type', 'application/json']]): ResponseHead => ({
  version: 'HTTP/1.1',
  status: 401,
  statusText,
  headers,
});

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending).toEqual([]);
});
afterAll(() => nock.enableNetConnect());

describe('the key a server echoes back', () => {
  it('a key the server echoes only in its error message is never printed, in text or JSON', async () => {
    nock(BASE)
      .get('/me')
      .reply(401, { message: `bad key ${KEY}`, correlationId: 'c-1' });
    const error = await failure(client().getMe());
    expect(error.message).not.toContain(KEY);
    expect(error.message).toContain('bad key [redacted]');
    expect(error.correlationId).toBe('c-1');
    expect(formatErrorJson(error)).not.toContain(KEY);
    expect(JSON.parse(formatErrorJson(error)).error.message).toBe('bad key [redacted]');
  });

  it("a key in the server's own words is kept out of the JSON error line, even where gymctl's message does not quote them", () => {
    const error = redactError(KEY, new GymApiError('unauthorized', 'refused', { serverMessage: `no such key ${KEY}` }));
    expect(error.serverMessage).toBe('no such key [redacted]');
    expect(formatErrorJson(error)).not.toContain(KEY);
  });

  it('a key the server echoes only as the correlation ID is never printed', () => {
    const error = redactError(KEY, new GymApiError('unauthorized', 'refused', { correlationId: `id-${KEY}` }));
    expect(error.correlationId).toBe('id-[redacted]');
    expect(formatErrorJson(error)).not.toContain(KEY);
  });

  it('an 8-character key is redacted wherever it is echoed', () => {
    const key = 'k1234567';
    const error = redactError(key, new GymApiError('unauthorized', `bad key ${key}`, { serverMessage: `bad key ${key}` }));
    expect(error.message).toBe('bad key [redacted]');
    expect(redactText(key, `a ${key} b`)).toBe('a [redacted] b');
    expect(redactHead(key, head(`Refused ${key}`)).statusText).toBe('Refused [redacted]');
  });

  it('a key shorter than 8 characters is left alone, so that it does not blank out common words', () => {
    const key = 'abc1234';
    expect(redactText(key, `found abc1234 in the text`)).toBe('found abc1234 in the text');
    const error = new GymApiError('unauthorized', `bad key ${key}`);
    expect(redactError(key, error).message).toBe(`bad key ${key}`);
    expect(redactHead(key, head(`Refused ${key}`)).statusText).toBe(`Refused ${key}`);
  });

  it('api -i never shows a key the server put in its reason phrase', () => {
    const shown = redactHead(KEY, head(`Unauthorized ${KEY}`));
    expect(shown.statusText).toBe('Unauthorized [redacted]');
    const error = redactError(KEY, new GymApiError('unauthorized', 'refused', { head: head(`Unauthorized ${KEY}`) }));
    expect(error.head?.statusText).toBe('Unauthorized [redacted]');
    expect(formatErrorJson(error)).not.toContain(KEY);
  });

  it("api -i never shows a key a proxy copied into a header's name or value", () => {
    const shown = redactHead(
      KEY,
      head('OK', [
        ['X-Echo', `key=${KEY}`],
        [`X-${KEY}`, 'yes'],
        ['Accept', 'a'],
      ]),
    );
    expect(shown.headers).toEqual([
      ['X-Echo', 'key=[redacted]'],
      ['X-[redacted]', 'yes'],
      ['Accept', 'a'],
    ]);
  });

  it('a failure that echoes nothing is handed on as it was, with its cause for --debug and library users', () => {
    const cause = new Error('socket closed');
    const error = new GymApiError('unauthorized', 'refused', { cause, correlationId: 'c-1', head: head('Unauthorized'), serverMessage: 'refused' });
    expect(redactError(KEY, error)).toBe(error);
    expect(redactError(KEY, error).cause).toBe(cause);
    const untouched = head('OK', [['X-Echo', 'nothing here']]);
    expect(redactHead(KEY, untouched)).toBe(untouched);
  });

  it('a failure that does echo the key is not kept with its cause, which may hold it too', () => {
    const error = new GymApiError('unauthorized', `bad key ${KEY}`, { cause: new Error(`sent ${KEY}`) });
    expect(redactError(KEY, error).cause).toBeUndefined();
  });

  it('the --debug trace hides every secret header, a proxy password included', () => {
    expect(redactHeaders({ 'X-Api-Key': 'k', authorization: 'Bearer t', 'Proxy-Authorization': 'Basic cA==', cookie: 'c', Accept: 'a' })).toEqual({
      'X-Api-Key': '[redacted]',
      authorization: '[redacted]',
      'Proxy-Authorization': '[redacted]',
      cookie: '[redacted]',
      Accept: 'a',
    });
  });
});
