/**
 * `gymctl mcp`'s limits, through the SDK's own client spawning the built
 * binary against a loopback API: an answer too long for one result comes
 * back shortened and well-formed (and the session goes on), a call ends
 * with gymctl's own failure before the client's 60 s, every academy of a
 * key comes in one call, requests in flight stay within --concurrency
 * across concurrent calls, an id named twice is fetched once, and text
 * from the API reaches the client with its controls shown.
 */
import type http from 'node:http';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { uuidv7 } from '../../src/sandbox/server.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { type SpawnedMcp, spawnMcp, toolError } from '../helpers/mcp-stdio.js';
import { httpServer } from '../helpers/servers.js';
import { toolsOf } from '../../src/mcp/tools.js';
import { academy as academyOperation } from '../../src/operations/index.js';

/** The academy operation's tools: its own, its batch, and the one listing every academy of the key. */
const [GET_ACADEMY, GET_ACADEMIES, LIST_ACADEMIES] = toolsOf([academyOperation]).map((tool) => tool.name) as [string, string, string];

const KEY = 'mcp-limits-key-0123456789abcdef';
const config = tempConfigDir();
afterAll(() => config.remove());

/** The academies of the key: 200 of them. */
const ACADEMIES = Array.from({ length: 200 }, (_, i) => i + 1);
/** A key with 600 academies (ids 1 to 200, then 10,001 to 10,400, which the API does not know). */
const MANY = 'mcp-limits-many-0123456789abcdef';
const MANY_ACADEMIES = [...ACADEMIES, ...Array.from({ length: 400 }, (_, i) => 10_001 + i)];
const academy = (id: number) => ({ id, name: `Academy ${id}`, currency: 'EUR', address: { city: 'Lisboa', country: 'PT' } });

/** Requests the API got, by path, and the most it had open at once. */
const paths: string[] = [];
let open = 0;
let mostOpen = 0;

/** A record whose `notes` is `bytes` long: 6 MB and 10 MB answers. */
const bigAcademy = (id: number, bytes: number) => JSON.stringify({ data: { ...academy(id), notes: 'x'.repeat(bytes) } });

function loopbackApi(request: http.IncomingMessage, response: http.ServerResponse): void {
  const url = request.url ?? '';
  paths.push(url);
  open++;
  mostOpen = Math.max(mostOpen, open);
  const json = (status: number, body: string) => {
    // A little later: so that requests sent at once are open at once.
    setTimeout(() => {
      open--;
      response.writeHead(status, { 'Content-Type': 'application/json' });
      response.end(body);
    }, 15);
  };
  const id = Number(/^\/academies\/([0-9]+)$/.exec(url)?.[1]);
  if (url === '/me') json(200, JSON.stringify({ data: { id: 7, name: 'limits', academyIds: request.headers['x-api-key'] === MANY ? MANY_ACADEMIES : ACADEMIES } }));
  else if (id === 6000) json(200, bigAcademy(id, 6_000_000));
  else if (id === 10000) json(200, bigAcademy(id, 10_000_000));
  else if (id === 666) json(400, JSON.stringify({ message: 'bad\u001b[2J\rgymctl mcp: FAKE LOG LINE\n\u0007', correlationId: uuidv7() }));
  else if (id === 667) json(200, JSON.stringify({ data: { ...academy(667), name: 'Evil\u001b]0;pwned\u0007 name\r\nnext' } }));
  else if (id >= 1 && id <= 200) json(200, JSON.stringify({ data: academy(id) }));
  else json(404, JSON.stringify({ message: 'Resource not found', correlationId: uuidv7() }));
}

type Answer = { data: unknown; notFound?: string[]; truncated?: Record<string, unknown> };

describe('gymctl mcp holds each answer, call and request to its limits', () => {
  let base: string;
  let mcp: SpawnedMcp;
  const logged: string[] = [];
  beforeAll(async () => {
    base = await httpServer(loopbackApi);
    mcp = await spawnMcp(['--base-url', base], config.dir, { GYMCTL_API_KEY: KEY });
    mcp.client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void logged.push(JSON.stringify(notification.params)));
    await mcp.client.setLoggingLevel('warning');
  });
  afterAll(() => mcp.close());
  beforeEach(() => {
    paths.length = 0;
    mostOpen = 0;
  });

  it('a 6 MB and a 10 MB academy each come back shortened, well-formed, saying so, within 1 MB; the next call still works', async () => {
    for (const id of ['6000', '10000']) {
      const result = await mcp.client.callTool({ name: GET_ACADEMY, arguments: { academyId: id } });
      // Both copies, as written, within the default limit.
      expect(Buffer.byteLength(JSON.stringify(result)), id).toBeLessThanOrEqual(1024 * 1024);
      const answer = result.structuredContent as Answer;
      expect(answer.data).toEqual({ ...academy(Number(id)), id });
      expect(answer.truncated).toMatchObject({ limit: 1024 * 1024, omittedFields: ['data.notes'], next: expect.stringContaining(`gymctl academy ${id} --json`) });
      expect(answer.truncated!.bytes as number).toBeGreaterThan(2 * Number(id) * 1000);
      expect(answer.truncated!.note).toMatch(/over the 1,048,576 this server sends in one result: it holds the record without notes/);
      // The text copy is the same JSON.
      expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toEqual(answer);
      const next = await mcp.client.callTool({ name: GET_ACADEMY, arguments: { academyId: '1' } });
      expect((next.structuredContent as Answer).data).toMatchObject({ id: '1', name: 'Academy 1' });
    }
  });

  it(`${LIST_ACADEMIES} answers all 200 academies of the key in one call, with at most 8 requests in flight`, async () => {
    const result = await mcp.client.callTool({ name: LIST_ACADEMIES, arguments: {} });
    const answer = result.structuredContent as Answer;
    expect((answer.data as Array<{ id: string }>).map((record) => record.id)).toEqual(ACADEMIES.map(String));
    expect(answer.notFound).toEqual([]);
    expect(answer.truncated).toBeUndefined();
    expect(paths.filter((path) => path.startsWith('/academies/'))).toHaveLength(200);
    expect(mostOpen).toBeLessThanOrEqual(8);
    expect(mostOpen).toBeGreaterThan(1);
  });

  it(`${LIST_ACADEMIES} fetches at most 500 academies in one call, and names the rest for another`, async () => {
    const many = await spawnMcp(['--base-url', base], config.dir, { GYMCTL_API_KEY: MANY });
    try {
      const answer = (await many.client.callTool({ name: LIST_ACADEMIES, arguments: {} })).structuredContent as Answer & {
        data: Array<{ id: string }>;
        truncated: { returned: number; total: number; omittedIds: string[] };
      };
      expect(paths.filter((path) => path.startsWith('/academies/'))).toHaveLength(500);
      expect(answer.data.map((record) => record.id)).toEqual(ACADEMIES.map(String));
      expect(answer.notFound).toHaveLength(300);
      expect(answer.truncated).toMatchObject({ returned: 200, total: 300 });
      expect(answer.truncated.omittedIds).toEqual(MANY_ACADEMIES.slice(500).map(String));
    } finally {
      await many.close();
    }
  });

  it(`50 concurrent ${GET_ACADEMIES} calls never have more than --concurrency requests in flight`, async () => {
    const limited = await spawnMcp(['--base-url', base, '--concurrency', '3'], config.dir, { GYMCTL_API_KEY: KEY });
    try {
      const calls = Array.from({ length: 50 }, (_, call) =>
        limited.client.callTool({ name: GET_ACADEMIES, arguments: { academyIds: Array.from({ length: 4 }, (_, i) => String(((call * 4 + i) % 200) + 1)) } }),
      );
      const results = await Promise.all(calls);
      expect(results.every((result) => !result.isError && (result.structuredContent as Answer & { data: unknown[] }).data.length === 4)).toBe(true);
      expect(paths).toHaveLength(200);
      expect(mostOpen).toBeLessThanOrEqual(3);
      expect(mostOpen).toBeGreaterThan(1);
    } finally {
      await limited.close();
    }
  });

  it('an id named twenty times is fetched once, and answered once', async () => {
    const result = await mcp.client.callTool({ name: GET_ACADEMIES, arguments: { academyIds: Array.from({ length: 20 }, () => '1') } });
    expect(paths).toEqual(['/academies/1']);
    expect(result.structuredContent).toMatchObject({ data: [{ id: '1' }], notFound: [] });
  });

  it("ESC, CR, LF and BEL from the API reach the client shown, never as controls: in the tool's text, the structured data, its log and stderr", async () => {
    const failed = await mcp.client.callTool({ name: GET_ACADEMY, arguments: { academyId: '666' } });
    const text = (failed.content as Array<{ text: string }>)[0]!.text;
    const error = toolError(failed);
    expect(error.message).toBe('academy 666: unexpected HTTP status 400 Bad Request: bad^[[2J^Mgymctl mcp: FAKE LOG LINE^J^G');
    // A JSON 400 is the API refusing the request, not a gateway's page.
    expect(error).toMatchObject({ kind: 'invalid_response', status: 400 });
    expect(error.next).toMatch(/The API refused the request \(HTTP 400\)/);
    expect(error.next).not.toMatch(/gateway|proxy/);
    await expect.poll(() => logged.find((line) => line.includes('academy 666'))).toBeDefined();
    const line = logged.find((entry) => entry.includes('academy 666'))!;
    // (stderr is lines: each without a control.)
    for (const place of [text, JSON.parse(line).data as string, ...mcp.stderr().split('\n')]) expect(place).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(mcp.stderr()).not.toMatch(/Warning/);
    expect(mcp.stderr()).not.toMatch(/^gymctl mcp: FAKE LOG LINE/m);

    const evil = await mcp.client.callTool({ name: GET_ACADEMY, arguments: { academyId: '667' } });
    expect((evil.structuredContent as { data: { name: string } }).data.name).toBe('Evil^[]0;pwned^G name^M\nnext');
  });

  it('--max-answer and --call-timeout are checked before serving: a bad one is a usage error', async () => {
    for (const [option, value] of [
      ['--max-answer', '1KB'],
      ['--max-answer', '9MB'],
      ['--max-answer', 'lots'],
      ['--call-timeout', 'soon'],
      ['--concurrency', '0'],
    ]) {
      const run = await runCli(['mcp', '--sandbox', option!, value!], config.dir);
      expect(run.code, `${option} ${value}`).toBe(2);
      expect(run.stderr).toMatch(new RegExp(`invalid ${option}|invalid timeout`));
      expect(run.stdout).toBe('');
    }
  });

  it(`a smaller --max-answer shortens ${LIST_ACADEMIES} to the records that fit, naming the rest for ${GET_ACADEMIES}`, async () => {
    const small = await spawnMcp(['--base-url', base, '--max-answer', '16KB'], config.dir, { GYMCTL_API_KEY: KEY });
    try {
      const result = await small.client.callTool({ name: LIST_ACADEMIES, arguments: {} });
      expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThanOrEqual(16 * 1024);
      const answer = result.structuredContent as Answer & { data: Array<{ id: string }>; truncated: { returned: number; total: number; omittedIds: string[]; next: string } };
      expect(answer.truncated.total).toBe(200);
      expect(answer.truncated.returned).toBe(answer.data.length);
      expect(answer.data.length).toBeGreaterThan(10);
      expect([...answer.data.map((record) => record.id), ...answer.truncated.omittedIds]).toEqual(ACADEMIES.map(String));
      expect(answer.truncated.next).toMatch(`Call ${GET_ACADEMIES} again with the ids in omittedIds`);
    } finally {
      await small.close();
    }
  });
});

describe('gymctl mcp against an API that never answers, with the default settings', () => {
  it("returns gymctl's own failure, with its kind and next step, before the client's 60 s", { timeout: 70_000 }, async () => {
    const never = await httpServer(() => {});
    const mcp = await spawnMcp(['--base-url', never], config.dir, { GYMCTL_API_KEY: KEY });
    try {
      // The SDK client's own default time limit (60 s): a -32001 from it would fail the test.
      const error = toolError(await mcp.client.callTool({ name: GET_ACADEMY, arguments: { academyId: '1' } }));
      expect(error).toMatchObject({ kind: 'unavailable', id: '1', message: "academy 1: no answer within 45 s, this server's time limit for one call (retries included)" });
      expect(error.next).toMatch(/--call-timeout/);
      expect(mcp.stderr()).toMatch(new RegExp(`^gymctl mcp: ${GET_ACADEMY}: academy 1: no answer within 45 s`, 'm'));
    } finally {
      await mcp.close();
    }
  });
});
