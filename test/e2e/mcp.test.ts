/**
 * `gymctl mcp` with a real MCP client, the SDK's own, spawning the built
 * binary: every tool against the sandbox, and every failure a loopback
 * server can make (401, 404, 429 with Retry-After, a timeout, a gateway's
 * HTML page) as a tool result with isError; a cancelled call's request
 * aborted; and no argument that makes gymctl send the key elsewhere.
 */
import type http from 'node:http';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { batchName, toolName, toolsOf } from '../../src/mcp/tools.js';
import { OPERATIONS, academy, family, whoami } from '../../src/operations/index.js';
import { uuidv7 } from '../../src/sandbox/server.js';
import { tempConfigDir } from '../helpers/cli.js';
import { declaredTools } from '../helpers/mcp.js';
import { type SpawnedMcp, spawnMcp, toolError } from '../helpers/mcp-stdio.js';
import { httpServer } from '../helpers/servers.js';

/** The academy operation's tools: its own, its batch, and the one listing every academy of the key. */
const [GET_ACADEMY, GET_ACADEMIES] = toolsOf([academy]).map((tool) => tool.name) as [string, string];
const LIST_FAMILY = toolName(family);
const WHOAMI = toolName(whoami);

const KEY = 'mcp-test-key-0123456789abcdef';
const BIG = '9223372036854775807';
const config = tempConfigDir();
afterAll(() => config.remove());

describe('gymctl mcp --sandbox, from the SDK client', () => {
  let mcp: SpawnedMcp;
  beforeAll(async () => {
    mcp = await spawnMcp(['--sandbox'], config.dir);
  });
  afterAll(() => mcp.close());

  it('lists one tool per operation and the batch, read-only, idempotent and open-world, each with an output schema', async () => {
    const { tools } = await mcp.client.listTools();
    // The declarations' tools, in their order, with the titles they give.
    expect(tools.map((tool) => [tool.name, tool.title])).toEqual(declaredTools().map((tool) => [tool.name, tool.title]));
    // A title is the operation's summary; the batch's names what it reads, in the plural the declaration gives.
    expect(tools.find((tool) => tool.name === GET_ACADEMY)!.title).toBe('One academy');
    expect(tools.find((tool) => tool.name === GET_ACADEMIES)!.title).toBe('Academies by id, several at once');
    for (const tool of tools) {
      expect(tool.annotations, tool.name).toMatchObject({ readOnlyHint: true, idempotentHint: true, openWorldHint: true, destructiveHint: false });
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.description!.length).toBeGreaterThan(100);
      // The failure's fields are said once, in the instructions, not in each tool a model reads.
      expect(tool.description).not.toContain('isError');
    }
    // The failure's fields, as toolFailure makes them; and the list never changes.
    expect(mcp.client.getInstructions()).toContain('{"error":{"message","kind","correlationId","status","id","next"}} (and "retryAfterSeconds" when rate limited)');
    expect(mcp.client.getServerCapabilities()?.tools).toEqual({ listChanged: false });
    expect(tools.find((tool) => tool.name === GET_ACADEMY)!.description).toMatch(/academyIds that whoami answers/);
    // The batch says what it does with several ids, not the one-record operation's "exactly one".
    const batch = tools.find((tool) => tool.name === GET_ACADEMIES)!.description!;
    expect(batch).toMatch(/^Academies by id, several at once: what an academy is for each id \(one GET \/academies\/\{academyId\} each\)/);
    expect(batch).not.toMatch(/exactly one/);
    // Ids are the only arguments: no URL, path, header or key.
    const idNames = OPERATIONS.flatMap((declaration) => (declaration.param ? [declaration.param.name, `${declaration.param.name}s`] : []));
    const taken = Object.fromEntries(tools.map((tool) => [tool.name, Object.keys(tool.inputSchema.properties ?? {})]));
    for (const [name, keys] of Object.entries(taken)) {
      expect(keys.length, name).toBeLessThanOrEqual(1);
      for (const key of keys) expect(idNames, `${name}: ${key}`).toContain(key);
    }
    // An operation's own tool takes its path parameter, its batch the same in the plural, and every other tool nothing.
    const expectedArgs = Object.fromEntries(
      OPERATIONS.flatMap((declaration) => [
        [toolName(declaration), declaration.param ? [declaration.param.name] : []],
        ...(batchName(declaration) ? [[batchName(declaration)!, [`${declaration.param!.name}s`]]] : []),
      ]),
    );
    for (const [name, keys] of Object.entries(taken)) expect(keys, name).toEqual(expectedArgs[name] ?? []);
    expect(Object.values(taken).flat().sort()).toEqual(Object.values(expectedArgs).flat().sort());
    // What each id takes is in the schema a client reads (the metadata survives the build's two copies of zod).
    const academyId = tools.find((tool) => tool.name === GET_ACADEMY)!.inputSchema;
    expect(academyId).toMatchObject({
      required: ['academyId'],
      properties: {
        academyId: {
          anyOf: [
            { type: 'string', pattern: '^[1-9][0-9]{0,18}$' },
            { type: 'integer', minimum: 1 },
          ],
        },
      },
    });
    expect(tools.find((tool) => tool.name === GET_ACADEMIES)!.inputSchema.properties).toMatchObject({ academyIds: { type: 'array', minItems: 1, maxItems: 20 } });
  });

  it('answers every tool, ids as strings (the client checks each answer against its outputSchema)', async () => {
    const me = await mcp.client.callTool({ name: WHOAMI, arguments: {} });
    expect(me.structuredContent).toMatchObject({ data: { id: '101', academyIds: ['1', '2', '3', '4'] } });
    expect(JSON.parse((me.content as Array<{ text: string }>)[0]!.text)).toEqual(me.structuredContent);
    const academy = await mcp.client.callTool({ name: GET_ACADEMY, arguments: { academyId: '1' } });
    expect(academy.structuredContent).toMatchObject({ data: { id: '1', name: 'Alfama Jiu-Jitsu', franchiseId: '10' } });
    const several = await mcp.client.callTool({ name: GET_ACADEMIES, arguments: { academyIds: ['2', 1, '999'] } });
    expect(several.structuredContent).toMatchObject({ data: [{ id: '2' }, { id: '1' }], notFound: ['999'] });
    const family = await mcp.client.callTool({ name: LIST_FAMILY, arguments: { memberId: '501' } });
    expect((family.structuredContent as { data: Array<{ id: string }> }).data.map((member) => member.id)).toEqual(['502', '503']);
    expect(mcp.stderr()).toMatch(new RegExp(`^gymctl mcp: serving ${declaredTools().length} tools`, 'm'));
  });

  it('answers ping, and says who it is', async () => {
    expect(await mcp.client.ping()).toEqual({});
    expect(mcp.client.getServerVersion()).toMatchObject({ name: 'gymctl' });
    expect(mcp.client.getInstructions()).toMatch(/Start with whoami/);
  });

  it('a bad id is refused before any request, as the CLI refuses it, with the failure every tool gives', async () => {
    for (const academyId of ['0', '-1', '1.5', '../me', '', 'x', '99999999999999999999']) {
      const error = toolError(await mcp.client.callTool({ name: GET_ACADEMY, arguments: { academyId } }));
      expect(error, academyId).toMatchObject({ kind: 'usage', correlationId: null, status: null });
      expect(error.next).toMatch(/refused before any request/);
    }
    expect(toolError(await mcp.client.callTool({ name: GET_ACADEMY, arguments: {} }))).toMatchObject({ kind: 'usage', message: expect.stringMatching(/^missing academy id/) });
    const tooMany = Array.from({ length: 21 }, (_, i) => String(i + 1));
    expect(toolError(await mcp.client.callTool({ name: GET_ACADEMIES, arguments: { academyIds: tooMany } })).message).toMatch(/1 to 20 academy ids, not 21/);
  });
});

/** Every request the loopback API got: where it was sent, its path and its headers. */
const seen: Array<{ host: string | undefined; url: string; key: string | undefined }> = [];
/** Requests the server never answers, and when each was aborted by the client. */
const held: Array<{ url: string; closed: Promise<void> }> = [];

function loopbackApi(request: http.IncomingMessage, response: http.ServerResponse): void {
  seen.push({ host: request.headers.host, url: request.url ?? '', key: request.headers['x-api-key'] as string | undefined });
  const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
    response.writeHead(status, { 'Content-Type': 'application/json', ...headers });
    response.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
  const correlationId = uuidv7();
  switch (request.url) {
    case '/me':
      json(401, { message: 'Unauthorized', correlationId });
      return;
    case '/academies/9':
      json(404, { message: 'Resource not found', correlationId });
      return;
    case '/academies/13':
      // A server that echoes the key: never passed on.
      json(404, { message: `no academy 13 for key ${KEY}`, correlationId });
      return;
    case '/academies/429':
      json(429, { message: 'Too many requests', correlationId }, { 'Retry-After': '7' });
      return;
    case '/academies/502':
      response.writeHead(502, { 'Content-Type': 'text/html', 'X-Request-Id': 'gw-42' });
      response.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
      return;
    case `/academies/${BIG}`:
      json(200, `{"data":{"id":${BIG},"name":"Big","franchiseId":9007199254740993}}`);
      return;
    default: {
      // Never answered: a timeout, or a call to cancel.
      held.push({ url: request.url ?? '', closed: new Promise((resolve) => request.socket.once('close', () => resolve())) });
    }
  }
}

describe('gymctl mcp against a loopback API that fails in every way', () => {
  let mcp: SpawnedMcp;
  /** The MCP log messages the server sent. */
  const logged: string[] = [];
  let base: string;
  beforeAll(async () => {
    base = await httpServer(loopbackApi);
    mcp = await spawnMcp(['--base-url', base, '--timeout', '400ms', '--retries', '0'], config.dir, { GYMCTL_API_KEY: KEY });
    mcp.client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void logged.push(JSON.stringify(notification.params)));
    await mcp.client.setLoggingLevel('warning');
  });
  afterAll(() => mcp.close());
  beforeEach(() => {
    seen.length = 0;
  });

  it('401, 404, 429 with Retry-After, a timeout and a gateway page are each a tool error with its kind, correlation ID and next step', async () => {
    const refused = toolError(await mcp.client.callTool({ name: WHOAMI, arguments: {} }));
    expect(refused).toMatchObject({ kind: 'unauthorized', status: 401, correlationId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(refused.message).toMatch(/refused the API key from GYMCTL_API_KEY/);
    expect(refused.next).toMatch(/gymctl auth login/);
    const missing = toolError(await mcp.client.callTool({ name: GET_ACADEMY, arguments: { academyId: '9' } }));
    expect(missing).toMatchObject({ kind: 'not_found', status: 404, id: '9', message: 'academy 9: Resource not found', correlationId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(missing.next).toMatch(/does not exist or is outside this key's scope/);
    const limited = toolError(await mcp.client.callTool({ name: GET_ACADEMY, arguments: { academyId: '429' } }));
    expect(limited).toMatchObject({ kind: 'unavailable', status: 429, retryAfterSeconds: 7, correlationId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(limited.next).toMatch(/wait 7 s/);
    const slow = toolError(await mcp.client.callTool({ name: GET_ACADEMY, arguments: { academyId: '7' } }));
    expect(slow).toMatchObject({ kind: 'unavailable', status: null, correlationId: null, message: 'academy 7: timed out after 400 ms' });
    expect(slow.next).toMatch(/did not answer in time/);
    const gateway = toolError(await mcp.client.callTool({ name: GET_ACADEMY, arguments: { academyId: '502' } }));
    expect(gateway).toMatchObject({ kind: 'unavailable', status: 502, correlationId: 'gw-42' });
    expect(gateway.message).toMatch(/gateway in front of the API/);
    // One request each, none retried (--retries 0).
    expect(seen.map((request) => request.url)).toEqual(['/me', '/academies/9', '/academies/429', '/academies/7', '/academies/502']);
    // Each failure is in the client's log too, through MCP logging.
    await expect.poll(() => logged.some((line) => line.includes(`${GET_ACADEMY}: academy 9: Resource not found`))).toBe(true);
  });

  it('a 64-bit id comes back with every digit, as a string', async () => {
    const big = await mcp.client.callTool({ name: GET_ACADEMY, arguments: { academyId: BIG } });
    expect(big.structuredContent).toEqual({ complete: true, data: { id: BIG, name: 'Big', franchiseId: '9007199254740993' } });
  });

  it('a cancelled call aborts its HTTP request', async () => {
    // Its own server, waiting an hour for an answer: the request closes during the test only if the cancellation aborts it.
    const patient = await spawnMcp(['--base-url', base, '--timeout', '1h', '--retries', '0'], config.dir, { GYMCTL_API_KEY: KEY });
    const patientLog: unknown[] = [];
    patient.client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void patientLog.push(notification.params));
    await patient.client.setLoggingLevel('debug');
    try {
      const controller = new AbortController();
      const call = patient.client.callTool({ name: GET_ACADEMY, arguments: { academyId: '8' } }, undefined, { signal: controller.signal, timeout: 60_000 });
      await expect.poll(() => held.some((request) => request.url === '/academies/8')).toBe(true);
      controller.abort('changed my mind');
      await expect(call).rejects.toThrow(/changed my mind|aborted/i);
      // The request to the API is closed: by the cancellation, as nothing else would close it within the hour.
      await held.find((request) => request.url === '/academies/8')!.closed;
      // The client that cancelled is not told of it as a failure in its log. (A ping after it: anything sent before has arrived.)
      await patient.client.ping();
      expect(patientLog).toEqual([]);
    } finally {
      await patient.close();
    }
  });

  it('no argument sends the key anywhere but the configured base URL, nor reaches any other path', async () => {
    const attempts: unknown[] = [
      '../me',
      '1?x=1',
      '1#x',
      '1/../../me',
      '%2e%2e',
      'http://127.0.0.2:1/steal',
      '//127.0.0.2/x',
      '/etc/passwd',
      '1 2',
      '1\n2',
      ' 1',
      '１',
      1.5,
      -1,
      Number.MAX_SAFE_INTEGER + 2,
      null,
      true,
      ['1'],
      { toString: '1' },
    ];
    for (const academyId of attempts) {
      const error = toolError(await mcp.client.callTool({ name: GET_ACADEMY, arguments: { academyId } }));
      expect(error.kind, JSON.stringify(academyId)).toBe('usage');
    }
    // Arguments a tool does not take are ignored: the base URL and key are the command line's.
    const echoed = toolError(
      await mcp.client.callTool({ name: GET_ACADEMY, arguments: { academyId: '13', baseUrl: 'http://127.0.0.2:9', apiKey: 'other', headers: { Host: 'x' } } }),
    );
    expect(echoed.message).toBe('academy 13: no academy 13 for key [redacted]');
    expect(seen).toEqual([{ host: new URL(base).host, url: '/academies/13', key: KEY }]);
    // Nor in any log line, on stderr or through MCP logging.
    expect(mcp.stderr()).not.toContain(KEY);
    await expect.poll(() => logged.some((line) => line.includes('no academy 13 for key [redacted]'))).toBe(true);
    expect(logged.join('\n')).not.toContain(KEY);
  });
});
