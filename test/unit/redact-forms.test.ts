// The key's obvious forms kept out of what a server echoes (src/api/transport/redact.ts): in any case, percent-encoded
// and in base64 or base64url, wherever an exact copy is redacted: the CLI's error line and --debug trace, the library's
// debug callback and errors, and an MCP tool's answer, failure and log. A hostile or careless API that echoes the key
// transformed would otherwise get it onto the screen, into a log or to a model.
import type http from 'node:http';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/client.js';
import { GymApiError } from '../../src/api/errors.js';
import { redactError, redactHead, redactText } from '../../src/api/transport/redact.js';
import { toolName } from '../../src/mcp/tools.js';
import { academy, OPERATIONS, whoami } from '../../src/operations/index.js';
import { gymctl } from '../helpers/harness.js';
import { inProcessMcp } from '../helpers/mcp.js';
import { httpServer } from '../helpers/servers.js';

const KEY = 'Test_Key+0123/abcdef=xyz';

const percentAll = (text: string, upper = true) => [...Buffer.from(text)].map((byte) => `%${byte.toString(16).padStart(2, '0')[upper ? 'toUpperCase' : 'toLowerCase']()}`).join('');

/** Each form an API might echo, named. */
const FORMS: Record<string, string> = {
  exact: KEY,
  'upper case': KEY.toUpperCase(),
  'lower case': KEY.toLowerCase(),
  'percent-encoded (encodeURIComponent)': encodeURIComponent(KEY),
  'every byte percent-encoded, upper-case hex': percentAll(KEY),
  'every byte percent-encoded, lower-case hex': percentAll(KEY, false),
  base64: Buffer.from(KEY).toString('base64'),
  'base64 without padding': Buffer.from(KEY).toString('base64').replace(/=+$/, ''),
  base64url: Buffer.from(KEY).toString('base64url'),
};

/** What must never be seen: each form, and what would give the key back (the base64 of `user:key`, decoded). */
function expectNoForm(text: string, where: string) {
  for (const [name, form] of Object.entries(FORMS)) expect(text, `${where}: ${name}`).not.toContain(form);
  expect(text.toLowerCase(), where).not.toContain(KEY.toLowerCase());
  for (const token of text.match(/[A-Za-z0-9+/_-]{16,}={0,2}/g) ?? []) {
    expect(Buffer.from(token, 'base64').toString('latin1'), `${where}: ${token} decoded`).not.toContain(KEY);
  }
}

describe('redactText', () => {
  it('redacts each form of the key, alone and inside other text', () => {
    for (const [name, form] of Object.entries(FORMS)) {
      expect(redactText(KEY, form), name).toBe('[redacted]');
      expect(redactText(KEY, `key=${form}; again ${form}.`), name).toBe('key=[redacted]; again [redacted].');
    }
  });

  it('redacts the key inside a longer base64 text, at each of its three alignments (Basic user:key, say)', () => {
    for (const before of ['', 'u:', 'us:', 'user:']) {
      for (const encoding of ['base64', 'base64url'] as const) {
        const encoded = Buffer.from(`${before}${KEY} and more`).toString(encoding);
        const shown = redactText(KEY, `Authorization: Basic ${encoded}`);
        expect(shown, `${before} ${encoding}`).toContain('[redacted]');
        expectNoForm(shown.replace('[redacted]', '!'), `${before} ${encoding}`);
      }
    }
  });

  it('a key mixing encodings (some characters percent-encoded, some case changed) is redacted too', () => {
    const mixed = `${KEY.slice(0, 5).toUpperCase()}${percentAll(KEY.slice(5, 9))}${KEY.slice(9)}`;
    expect(redactText(KEY, `[${mixed}]`)).toBe('[[redacted]]');
  });

  it('leaves text alone that holds no form of the key, and a key under 8 characters alone whatever its form', () => {
    const text = 'academy 1: Test_Key is a name; dGVzdA== is base64 of test';
    expect(redactText(KEY, text)).toBe(text);
    expect(redactText('abc1234', 'ABC1234 YWJjMTIzNA==')).toBe('ABC1234 YWJjMTIzNA==');
    const head = { version: 'HTTP/1.1', status: 200, statusText: 'OK', headers: [['X-Echo', 'nothing']] as Array<readonly [string, string]> };
    expect(redactHead(KEY, head)).toBe(head);
    expect(redactHead(KEY, { ...head, headers: [['X-Echo', FORMS.base64!]] }).headers).toEqual([['X-Echo', '[redacted]']]);
  });
});

describe('a key of its own, its pattern made in the test that reads it', () => {
  it('its bytes beyond ASCII and under 16 percent-encoded, and its base64 holding + and / (- and _ in base64url), at each alignment', () => {
    const key = 'clé~~~???\u0001s3cret';
    expect(redactText(key, `k=${encodeURIComponent(key)}`)).toBe('k=[redacted]');
    for (const before of ['', 'u:', 'us:']) {
      for (const encoding of ['base64', 'base64url'] as const) {
        const encoded = Buffer.from(`${before}${key} and more`).toString(encoding);
        const shown = redactText(key, `Basic ${encoded}`);
        expect(shown, `${before} ${encoding}`).toContain('[redacted]');
        for (const token of shown.split(/\[redacted\]| /)) expect(Buffer.from(token, 'base64').toString('latin1')).not.toContain('s3cret');
      }
    }
  });

  it('an error with no server message nor correlation id is handed back as it is, whatever the key', () => {
    const error = new GymApiError('unauthorized', 'refused');
    expect(redactError('undefined', error)).toBe(error);
  });
});

/** An API that echoes the key in every form: in its reason phrase, a header, its error message and, for `/academies/1`, its data. */
async function echoingApi(): Promise<string> {
  const all = Object.values(FORMS).join(' ');
  return httpServer((request: http.IncomingMessage, response: http.ServerResponse) => {
    const sent = String(request.headers['x-api-key']);
    const echoed = Object.values(FORMS).every((form) => all.includes(form)) && sent === KEY ? all : 'wrong key sent';
    if (request.url === '/academies/1') {
      response.writeHead(200, { 'Content-Type': 'application/json', 'X-Correlation-Id': FORMS.base64! });
      response.end(JSON.stringify({ data: { id: 1, name: `Academy ${echoed}`, notes: { [FORMS['upper case']!]: echoed } } }));
      return;
    }
    response.writeHead(401, `Refused ${FORMS['percent-encoded (encodeURIComponent)']}`, { 'Content-Type': 'application/json', 'X-Correlation-Id': FORMS.base64url! });
    response.end(JSON.stringify({ message: `bad key ${echoed}`, correlationId: FORMS['upper case'] }));
  });
}

describe('an API that echoes the key in every form', () => {
  it("never gets it into the library's debug callback or its errors", async () => {
    const lines: string[] = [];
    const client = createClient({ baseUrl: await echoingApi(), apiKey: KEY, retries: 0, debug: (line) => lines.push(line) });
    try {
      const error = (await client.getMe().catch((failure: unknown) => failure)) as GymApiError;
      expect(error).toBeInstanceOf(GymApiError);
      expect(error.kind).toBe('unauthorized');
      expect(error.message).toContain('[redacted]');
      expectNoForm(JSON.stringify({ message: error.message, serverMessage: error.serverMessage, correlationId: error.correlationId }), 'error');
      expect(lines.join('\n')).toContain('< 401 Refused [redacted]');
      expectNoForm(lines.join('\n'), 'debug');
    } finally {
      await client.close();
    }
  });

  it("never gets it onto the CLI's stderr: the error line, text or JSON, and the --debug trace", async () => {
    const url = await echoingApi();
    // The data a command prints is the API's, as sent (exact copies too): only what gymctl writes of its own is redacted.
    for (const args of [
      ['whoami', '--debug'],
      ['whoami', '--json'],
      ['academy', '1', '--debug'],
    ]) {
      const result = await gymctl(args, { env: { GYMCTL_BASE_URL: url, GYMCTL_API_KEY: KEY } });
      expect(result.stderr, args.join(' ')).toContain('[redacted]');
      expectNoForm(result.stderr, `${args.join(' ')}: stderr`);
    }
  });

  it("never gets it to an MCP client: in a tool's answer, its failure or the server's log", async () => {
    const mcp = await inProcessMcp(OPERATIONS, await echoingApi(), KEY);
    try {
      const answer = (await mcp.client.callTool({ name: toolName(academy), arguments: { [academy.param!.name]: '1' } })) as CallToolResult;
      expect(answer.isError).toBeFalsy();
      expect(answer.structuredContent).toMatchObject({ data: { name: expect.stringContaining('[redacted]') } });
      const failed = (await mcp.client.callTool({ name: toolName(whoami), arguments: {} })) as CallToolResult;
      expect(failed.isError).toBe(true);
      for (const [where, text] of Object.entries({ answer: JSON.stringify(answer), failure: JSON.stringify(failed), log: mcp.log.join('\n') })) {
        expectNoForm(text, where);
      }
    } finally {
      await mcp.close();
    }
  });
});
