// A refused key (401, 403) is wrong for every id: it stops a batch (src/commands/shared/batch.ts) and an MCP call
// (src/mcp/server.ts) at once, said once; a 429 or 5xx stays a failure of its id. Against a loopback server that counts.
import type http from 'node:http';
import { describe, expect, it } from 'vitest';
import { batchName } from '../../src/mcp/tools.js';
import { academy as academyOperation, OPERATIONS } from '../../src/operations/index.js';
import { gymctl } from '../helpers/harness.js';
import { inProcessMcp } from '../helpers/mcp.js';
import { httpServer } from '../helpers/servers.js';

const KEY = 'wrong_key_0123456789';
const refusal = (status: number) => JSON.stringify({ message: 'Unauthorized', correlationId: `c-${status}` });
const academy = (id: number) => JSON.stringify({ data: { id, name: `Academy ${id}`, address: null } });

/** A server answering each path with `answer` (after its `delayMs`, else the server's), counting the requests that reach it. */
async function counting(answer: (id: number) => { status: number; body: string; delayMs?: number } | 'silent', delayMs = 0) {
  const asked: number[] = [];
  const url = await httpServer((request: http.IncomingMessage, response: http.ServerResponse) => {
    const id = Number(request.url?.split('/').at(-1));
    asked.push(id);
    const reply = answer(id);
    if (reply === 'silent') return;
    setTimeout(() => response.writeHead(reply.status, { 'Content-Type': 'application/json' }).end(reply.body), reply.delayMs ?? delayMs);
  });
  return { url, asked };
}

const ids = (n: number) => `${Array.from({ length: n }, (_, i) => i + 1).join('\n')}\n`;
const env = (url: string) => ({ GYMCTL_BASE_URL: url, GYMCTL_API_KEY: KEY });

describe('a refused key stops the batch', () => {
  for (const status of [401, 403]) {
    it(`300 ids, every one ${status}: at most --concurrency requests, the refusal said once with the ids not tried, exit 4`, async () => {
      const server = await counting(() => ({ status, body: refusal(status) }), 20);
      const table = await gymctl(['academy', '-'], { env: env(server.url), stdin: ids(300) });
      expect(table.code).toBe(4);
      expect(table.stdout).toBe('');
      expect(server.asked.length).toBeLessThanOrEqual(8);
      const lines = table.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/: Unauthorized: the server refused the API key from GYMCTL_API_KEY; check it with `gymctl auth status` \(HTTP 40[13], correlation ID c-40[13]\)$/);
      // Every id but the refused one: those never sent, and those in flight (cancelled or refused too, untold).
      expect(lines[1]).toBe('gymctl: the batch stopped there: 299 of 300 ids were not tried');
    });
  }

  it('ndjson: one JSON line, the last on stderr, counting the ids not tried; nothing on stdout', async () => {
    const server = await counting(() => ({ status: 401, body: refusal(401) }), 20);
    const result = await gymctl(['academy', '-', '--format', 'ndjson', '--concurrency', '3'], { env: env(server.url), stdin: ids(300) });
    expect(result.code).toBe(4);
    expect(result.stdout).toBe('');
    expect(server.asked.length).toBeLessThanOrEqual(3);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toEqual({
      error: { message: 'Unauthorized', correlationId: 'c-401', status: 401, kind: 'unauthorized', id: expect.any(Number), notTried: 299 },
    });
  });

  it('the records answered before the refusal are kept, in order; those in flight are cancelled and counted as not tried', async () => {
    // 1 to 3 answer at once; 4, sent once one of them has, is refused 200 ms later, when 5 and 6 are in flight: they never answer.
    const server = await counting((id) => (id <= 3 ? { status: 200, body: academy(id) } : id === 4 ? { status: 401, body: refusal(401), delayMs: 200 } : 'silent'));
    // Cancelled, not waited for: the run ends, within this test's limit, long before the 60 s attempt timeout would end it.
    const result = await gymctl(['academy', '-', '--format', 'ndjson', '--concurrency', '3', '--timeout', '60s'], { env: env(server.url), stdin: ids(10) });
    expect(result.code).toBe(4);
    expect(
      result.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line).id),
    ).toEqual([1, 2, 3]);
    const error = JSON.parse(result.stderr);
    expect(error.error).toMatchObject({ kind: 'unauthorized', id: 4 });
    // 5 to 10: those in flight (cancelled) and those never sent.
    expect(error.error.notTried).toBe(6);
    expect(Math.max(...server.asked)).toBeLessThanOrEqual(6);
  }, 15_000);

  it('one id refused: its line alone, no count', async () => {
    const server = await counting(() => ({ status: 401, body: refusal(401) }));
    const json = await gymctl(['academy', '7', '--format', 'json'], { env: env(server.url) });
    expect(json.code).toBe(4);
    expect(JSON.parse(json.stderr).error).not.toHaveProperty('notTried');
  });

  it('a 500 or 429 stays a failure of its id: every id is tried and reported', async () => {
    for (const status of [500, 429]) {
      const server = await counting(() => ({ status, body: JSON.stringify({ message: 'busy', correlationId: 'c' }) }));
      const result = await gymctl(['academy', '1', '2', '3', '--retries', '0', '--format', 'ndjson'], { env: env(server.url) });
      expect(result.code, String(status)).toBe(5);
      expect(server.asked.sort(), String(status)).toEqual([1, 2, 3]);
      expect(result.stderr.trimEnd().split('\n'), String(status)).toHaveLength(3);
    }
  });
});

describe('a refused key stops an MCP call', () => {
  it(`${batchName(academyOperation)} of 20 ids: at most the gate's places in requests, and the call fails as unauthorized`, async () => {
    const server = await counting(() => ({ status: 401, body: refusal(401) }), 20);
    const mcp = await inProcessMcp(OPERATIONS, server.url, KEY);
    try {
      const result = await mcp.client.callTool({ name: batchName(academyOperation)!, arguments: { academyIds: Array.from({ length: 20 }, (_, i) => String(i + 1)) } });
      expect(result.isError).toBe(true);
      const { error } = JSON.parse((result.content as Array<{ text: string }>)[0]!.text);
      expect(error).toMatchObject({ kind: 'unauthorized', status: 401 });
      expect(error.next).toContain('gymctl auth login');
      expect(server.asked.length).toBeLessThan(20);
    } finally {
      await mcp.close();
    }
  });
});

describe('a refused key stops the picker', () => {
  it("no id at a terminal: a refusal of one academy's name cancels the others, and the run fails with it, exit 4", async () => {
    const listed = Array.from({ length: 30 }, (_, i) => i + 1);
    const asked: string[] = [];
    const url = await httpServer((request, response) => {
      asked.push(request.url ?? '');
      const json = { 'Content-Type': 'application/json' };
      if (request.url === '/me') {
        response.writeHead(200, json).end(JSON.stringify({ data: { id: 1, name: 'k', academyIds: listed, owner: { id: 2, name: 'o', email: 'o@example.com' } } }));
      } else setTimeout(() => response.writeHead(403, json).end(refusal(403)), 20);
    });
    const result = await gymctl(['academy'], { stdinTTY: true, stdoutTTY: true, stderrTTY: true, env: env(url) });
    expect(result.code).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/Unauthorized: the server refused the API key from GYMCTL_API_KEY/);
    expect(result.stderr).not.toContain('Which academy');
    expect(asked.filter((path) => path !== '/me').length).toBeLessThanOrEqual(8);
  });
});
