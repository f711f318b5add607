// JSON-RPC over stdio as `gymctl mcp` reads it (src/mcp/protocol.ts): the lines a client writes, through the same
// line reader and the SDK's stdio transport, in this process. A request refused without its id leaves its client
// waiting on that id until its own timeout.
import { PassThrough } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { usageError } from '../../src/failures.js';
import { boundedLines, markRefusedParams } from '../../src/mcp/protocol.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { OPERATIONS, academy } from '../../src/operations/index.js';
import { toolName } from '../../src/mcp/tools.js';

const GET_ACADEMY = toolName(academy);

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

/** A server on stdio streams of this process: `send` writes one line, `reply(id)` waits for the answer to `id`. */
async function stdioServer() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const replies: Array<Record<string, unknown>> = [];
  let buffered = '';
  stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    for (let end = buffered.indexOf('\n'); end !== -1; end = buffered.indexOf('\n')) {
      replies.push(JSON.parse(buffered.slice(0, end)));
      buffered = buffered.slice(end + 1);
    }
  });
  const lines = boundedLines(1024 * 1024, () => {});
  stdin.pipe(lines);
  const mcp = createMcpServer({ operations: OPERATIONS, session: { failure: usageError('no key') }, version: '0.0.0', log: () => {} });
  await mcp.connect(new StdioServerTransport(lines as unknown as NodeJS.ReadStream, stdout as unknown as NodeJS.WriteStream));
  closing.push(() => mcp.server.close());
  const send = (line: string) => void stdin.write(`${line}\n`);
  const reply = async (id: unknown) => {
    for (let waited = 0; waited < 2000; waited += 5) {
      const found = replies.find((message) => message.id === id);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`no reply to ${String(id)}: ${JSON.stringify(replies)}`);
  };
  send(JSON.stringify(INITIALIZE));
  await reply(1);
  send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  return { send, reply, replies };
}

describe('params that are not an object', () => {
  it('a string or an array gets -32602 with the request id, and serving goes on', async () => {
    const server = await stdioServer();
    server.send('{"jsonrpc":"2.0","id":8,"method":"tools/call","params":"x"}');
    expect(await server.reply(8)).toEqual({ jsonrpc: '2.0', id: 8, error: { code: -32602, message: 'Invalid params for tools/call: params must be an object, not a string' } });
    server.send('{"jsonrpc":"2.0","id":"nine","method":"tools/list","params":[1,2]}');
    expect(await server.reply('nine')).toEqual({
      jsonrpc: '2.0',
      id: 'nine',
      error: { code: -32602, message: 'Invalid params for tools/list: params must be an object, not an array' },
    });
    server.send('{"jsonrpc":"2.0","id":10,"method":"tools/call","params":null}');
    expect(await server.reply(10)).toMatchObject({ error: { code: -32602, message: 'Invalid params for tools/call: params must be an object, not null' } });
    // No answer with id null for any of them.
    expect(server.replies.filter((message) => message.id === null)).toEqual([]);
    server.send(JSON.stringify({ jsonrpc: '2.0', id: 11, method: 'tools/list', params: {} }));
    expect(((await server.reply(11)).result as { tools: unknown[] }).tools.length).toBeGreaterThan(0);
  });

  it('a _meta that is not an object, or a progress token neither a string nor a whole number, gets -32602 with the request id', async () => {
    const server = await stdioServer();
    const sent: Array<[number, unknown, string]> = [
      [12, 'x', 'params._meta must be an object, not a string'],
      [13, [1], 'params._meta must be an object, not an array'],
      [14, { progressToken: { a: 1 } }, 'params._meta.progressToken must be a string or a whole number'],
      [15, { progressToken: 1.5 }, 'params._meta.progressToken must be a string or a whole number'],
    ];
    for (const [id, meta] of sent) server.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params: { _meta: meta } }));
    for (const [id, , why] of sent) expect(await server.reply(id)).toEqual({ jsonrpc: '2.0', id, error: { code: -32602, message: `Invalid params for tools/list: ${why}` } });
    expect(server.replies.filter((message) => message.id === null)).toEqual([]);
    // A progress token the SDK takes is passed on.
    server.send(JSON.stringify({ jsonrpc: '2.0', id: 16, method: 'tools/list', params: { _meta: { progressToken: 'p' } } }));
    expect(((await server.reply(16)).result as { tools: unknown[] }).tools.length).toBeGreaterThan(0);
  });

  it('an object params, even one holding text that looks like params, is read as it is', async () => {
    const server = await stdioServer();
    server.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: GET_ACADEMY, arguments: { academyId: '"params": "x"' } } }));
    const reply = await server.reply(2);
    // The tool ran, and refused the id in its own words.
    expect(reply.result).toMatchObject({ isError: true });
  });

  it('a parsed message is marked only when its params are not an object: the same value otherwise, a batch marked one by one', () => {
    const fine = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
    const notification = { jsonrpc: '2.0', method: 'notifications/progress', params: 'x' };
    const batch = [fine, notification];
    for (const message of [fine, notification, batch, 'x', null]) expect(markRefusedParams(message)).toBe(message);
    const bad = { jsonrpc: '2.0', id: 8, method: 'tools/call', params: 'x' };
    expect(markRefusedParams(bad)).toEqual({
      jsonrpc: '2.0',
      id: 8,
      method: 'tools/call',
      params: { _meta: { 'gymctl/refusedParams': 'params must be an object, not a string' } },
    });
    const withToken = { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { _meta: { progressToken: 7 } } };
    expect(markRefusedParams(withToken)).toBe(withToken);
    const marked = markRefusedParams([fine, bad]) as unknown[];
    expect(marked[0]).toBe(fine);
    expect(marked[1]).toEqual(markRefusedParams(bad));
  });
});
