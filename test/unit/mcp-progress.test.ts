// A long call of `gymctl mcp` (src/mcp/server.ts, tools.ts, fit.ts): it tells the client how far it has got, and when
// its time runs out it answers the records it fetched and names the rest, rather than failing and losing them all.
// A refused key still fails the call at once, and a call that fetched nothing is still the timeout's failure.
import type http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient } from '../../src/api/client.js';
import { bytesOf } from '../../src/mcp/fit.js';
import { DEFAULT_MAX_ANSWER_BYTES } from '../../src/mcp/limits.js';
import { createMcpServer, PROGRESS_AT_LEAST_MS, PROGRESS_EVERY_MS, progressOf } from '../../src/mcp/server.js';
import { OPERATIONS, academy as academyOperation } from '../../src/operations/index.js';
import { httpServer } from '../helpers/servers.js';
import { toolsOf } from '../../src/mcp/tools.js';

/** The academy operation's tools: its own, its batch, and the one listing every academy of the key. */
const [, GET_ACADEMIES, LIST_ACADEMIES] = toolsOf([academyOperation]).map((tool) => tool.name) as [string, string, string];

const KEY = 'mcp-progress-key-0123456789abcdef';
const academy = (id: number) => ({ id, name: `Academy ${id}`, currency: 'EUR', address: { city: 'Lisboa', country: 'PT' } });

/**
 * The case is 2,000 academies at 800 ms each, `--concurrency 8` (the default), `--call-timeout 20s`: 200 s of
 * requests against a 20 s limit, ten times too many. Here 200 academies at 200 ms each, `--concurrency 2`, a 2 s limit:
 * 20 s of requests against 2 s, the same ten times, with many requests answered and many never sent when time runs out.
 */
const ACADEMIES = Array.from({ length: 200 }, (_, i) => i + 1);
const DELAY_MS = 200;
const LIMITS = { concurrency: 2, callTimeoutMs: 2000, maxAnswerBytes: DEFAULT_MAX_ANSWER_BYTES };

/** An API that answers each academy after DELAY_MS; `refuse` answers 401 for that id, `silent` never answers those. */
async function slowApi(options: { refuse?: number; silent?: boolean } = {}): Promise<string> {
  return httpServer((request: http.IncomingMessage, response: http.ServerResponse) => {
    const json = (status: number, body: unknown) => {
      response.writeHead(status, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (request.url === '/me') return json(200, { data: { id: 7, name: 'slow', academyIds: ACADEMIES } });
    const id = Number(/^\/academies\/([0-9]+)$/.exec(request.url ?? '')?.[1]);
    if (options.silent) return;
    setTimeout(() => {
      if (id === options.refuse) json(401, { message: 'Invalid API key', correlationId: 'c-401' });
      else json(200, { data: academy(id) });
    }, DELAY_MS);
  });
}

const opened: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of opened.splice(0)) await close();
});

async function connect(baseUrl: string) {
  const api = createClient({ baseUrl, apiKey: KEY, retries: 0 });
  const log: string[] = [];
  const mcp = createMcpServer({ operations: OPERATIONS, session: { client: api, apiKey: KEY }, version: '0.0.0', log: (line) => log.push(line), limits: LIMITS });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await mcp.connect(serverSide);
  const client = new Client({ name: 'gymctl-test', version: '0.0.0' });
  await client.connect(clientSide);
  opened.push(async () => {
    await client.close();
    await mcp.server.close();
    await api.close();
  });
  return { client, log };
}

type Partial = {
  data: Array<{ id: string }>;
  notFound: string[];
  complete: boolean;
  truncated: { reason: string; note: string; omittedIds: string[]; next: string; returned: number; total: number; bytes?: number; returnedBytes: number };
};

describe('a long call', () => {
  it(`${LIST_ACADEMIES} past its time limit answers the records fetched, not an error, names the rest, and reports progress on the way`, async () => {
    const { client } = await connect(await slowApi());
    const progress: Progress[] = [];
    const result = (await client.callTool({ name: LIST_ACADEMIES, arguments: {} }, undefined, { onprogress: (p) => progress.push(p) })) as CallToolResult;
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const answer = result.structuredContent as Partial;
    expect(answer.complete).toBe(false);
    // About 2 s / 200 ms × 2 places: some fetched, most not.
    expect(answer.data.length).toBeGreaterThan(5);
    expect(answer.data.length).toBeLessThan(40);
    expect([...answer.data.map((record) => record.id), ...answer.truncated.omittedIds]).toEqual(ACADEMIES.map(String));
    expect(answer.truncated).toMatchObject({ reason: 'time_limit', returned: answer.data.length, total: 200 });
    // The size of the whole answer is not known (most records were never fetched); the size returned is.
    expect(answer.truncated.bytes).toBeUndefined();
    expect(answer.truncated.returnedBytes).toBe(bytesOf({ structuredContent: answer, content: result.content }));
    expect(answer.truncated.note).toBe(
      `This call's time limit (2 s, this server's --call-timeout) ran out before ${200 - answer.data.length} records were fetched: it holds the first ${answer.data.length} of its 200 records.`,
    );
    expect(answer.truncated.next).toBe(
      `Call ${GET_ACADEMIES} again with the ids in omittedIds, at most 20 at a time: those the time limit left out were not refused, only not reached in time.`,
    );
    // Progress: records settled, of 200, each notification further on than the last, with a message.
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.every((p) => p.total === 200 && /^[0-9,]+ of 200 records fetched$/.test(p.message ?? ''))).toBe(true);
    for (const [at, p] of progress.entries()) if (at > 0) expect(p.progress).toBeGreaterThan(progress[at - 1]!.progress);
    expect(progress.at(-1)!.progress).toBeGreaterThan(0);
    expect(progress.at(-1)!.progress).toBeLessThanOrEqual(answer.data.length);
  });

  it(`${GET_ACADEMIES} past its time limit answers what it fetched too, and names the rest in the order asked`, async () => {
    const { client } = await connect(await slowApi());
    const ids = ACADEMIES.slice(0, 20).map(String);
    const result = (await client.callTool({ name: GET_ACADEMIES, arguments: { academyIds: ids } })) as CallToolResult;
    const answer = result.structuredContent as Partial;
    expect(result.isError).toBeFalsy();
    expect(answer.complete).toBe(false);
    expect(answer.data.length).toBeGreaterThan(5);
    expect([...answer.data.map((record) => record.id), ...answer.truncated.omittedIds]).toEqual(ids);
    expect(answer.truncated.next).toMatch(new RegExp(`^Call ${GET_ACADEMIES} again with the ids in omittedIds, at most 20 at a time`));
  });

  it('a complete answer says so, and has no truncated', async () => {
    const { client } = await connect(await slowApi());
    const result = (await client.callTool({ name: GET_ACADEMIES, arguments: { academyIds: ['1', '2'] } })) as CallToolResult;
    expect(result.structuredContent).toMatchObject({ complete: true, notFound: [] });
    expect(result.structuredContent).not.toHaveProperty('truncated');
  });

  it('a refused key still fails the call at once, not as a partial answer at the time limit', async () => {
    const { client } = await connect(await slowApi({ refuse: 3 }));
    const result = (await client.callTool({ name: LIST_ACADEMIES, arguments: {} })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text).error).toMatchObject({ kind: 'unauthorized', status: 401 });
  });

  it('a call that fetched nothing before its time ran out is the timeout failure, as before: there is nothing to answer', async () => {
    const { client, log } = await connect(await slowApi({ silent: true }));
    const result = (await client.callTool({ name: GET_ACADEMIES, arguments: { academyIds: ['1', '2'] } })) as CallToolResult;
    expect(result.isError).toBe(true);
    const { error } = JSON.parse((result.content as Array<{ text: string }>)[0]!.text);
    expect(error).toMatchObject({ kind: 'unavailable', message: expect.stringMatching(/^academy [12]: no answer within 2 s, this server's time limit for one call/) });
    expect(log).toHaveLength(1);
  });
});

describe('progress notifications', () => {
  afterEach(() => void vi.useRealTimers());

  it('come at least every few seconds while no record settles, still increasing and never claiming one more record', async () => {
    vi.useFakeTimers();
    const sent: Array<{ progress: number; total?: number; message?: string }> = [];
    const extra = { _meta: { progressToken: 't' }, sendNotification: async (n: { params: (typeof sent)[number] }) => void sent.push(n.params) };
    const progress = progressOf(extra as never, 'records')!;
    // Nothing until the tool says how many records it fetches.
    vi.advanceTimersByTime(2 * PROGRESS_AT_LEAST_MS);
    expect(sent).toEqual([]);
    progress.report(0, 3);
    expect(sent).toEqual([{ progressToken: 't', progress: 0, total: 3, message: '0 of 3 records fetched' }]);
    // Nothing settles: one every PROGRESS_AT_LEAST_MS (under the 5 s asked), between 0 and 1, growing.
    vi.advanceTimersByTime(5000);
    expect(sent.length).toBeGreaterThan(1);
    vi.advanceTimersByTime(Math.max(0, 2 * PROGRESS_AT_LEAST_MS + PROGRESS_EVERY_MS / 2 - 5000));
    expect(sent.map((p) => p.progress)).toEqual([0, 1 / 2, 2 / 3]);
    // Records settle: at most one a PROGRESS_EVERY_MS, with the count.
    progress.report(1, 3);
    progress.report(2, 3);
    vi.advanceTimersByTime(PROGRESS_EVERY_MS);
    expect(sent.at(-1)).toMatchObject({ progress: 2, message: '2 of 3 records fetched' });
    expect(sent).toHaveLength(4);
    progress.stop();
    vi.advanceTimersByTime(10 * PROGRESS_AT_LEAST_MS);
    expect(sent).toHaveLength(4);
    // No token asked for, none sent.
    expect(progressOf({ sendNotification: async () => {} } as never, 'records')).toBeUndefined();
  });
});
