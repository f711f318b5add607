/**
 * `gymctl mcp`'s stdio as bytes, with no client library in between:
 * garbage gets a JSON-RPC error and serving goes on, stdout holds nothing
 * but the protocol, the end of stdin ends it with 0 and SIGTERM with 143;
 * and the command is in the help and man page.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, cleanEnv, runCli, tempConfigDir } from '../helpers/cli.js';
import { toolName } from '../../src/mcp/tools.js';
import { academy, whoami } from '../../src/operations/index.js';

const GET_ACADEMY = toolName(academy);
const WHOAMI = toolName(whoami);

const config = tempConfigDir();
afterAll(() => config.remove());

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

/** `gymctl mcp` (with `args`, --sandbox unless told otherwise) with pipes: send lines, read each JSON line it writes, and its exit. */
function rawServer(args: string[] = ['--sandbox'], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, 'mcp', ...args], { env: cleanEnv(config.dir, env), stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let pending = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    const parts = pending.split('\n');
    pending = parts.pop()!;
    lines.push(...parts);
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  const messages = () => lines.map((line) => JSON.parse(line) as { id?: unknown; result?: Record<string, unknown>; error?: { code: number } });
  return {
    child,
    send: (text: string) => child.stdin.write(`${text}\n`),
    messages,
    /** The answer to request `id`, once it came. */
    answer: async (id: number) => {
      await expect.poll(() => messages().some((message) => message.id === id)).toBe(true);
      return messages().find((message) => message.id === id)!;
    },
    stderr: () => stderr,
    exited,
    pending: () => pending,
  };
}

describe('gymctl mcp on raw stdio', () => {
  it('answers every call that stdin held before it ended (echo requests | gymctl mcp), then exits 0', async () => {
    const server = rawServer();
    server.send(JSON.stringify(INITIALIZE));
    server.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    server.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: GET_ACADEMY, arguments: { academyId: '1' } } }));
    server.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: GET_ACADEMY, arguments: { academyId: '999' } } }));
    server.child.stdin.end();
    const { code } = await server.exited;
    expect(code).toBe(0);
    const answers = server.messages().filter((message) => message.id !== undefined);
    expect(answers.map((message) => message.id)).toEqual(expect.arrayContaining([1, 2, 3]));
    expect(answers.find((message) => message.id === 2)?.result).toMatchObject({ structuredContent: { data: { id: '1' } } });
    expect(answers.find((message) => message.id === 3)?.result).toMatchObject({ isError: true });
  });

  it('answers a line that is not JSON, or not JSON-RPC, with a JSON-RPC error, and keeps serving', async () => {
    const server = rawServer();
    server.send(JSON.stringify(INITIALIZE));
    expect((await server.answer(1)).result).toMatchObject({ serverInfo: { name: 'gymctl' } });
    server.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    server.send('this is not json {');
    server.send('{"hello":"world"}');
    server.send('\u0000\u00ff garbage');
    server.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: GET_ACADEMY, arguments: { academyId: '2' } } }));
    const answer = await server.answer(2);
    expect(answer.result).toMatchObject({ structuredContent: { data: { id: '2' } } });
    const errors = server.messages().filter((message) => message.error);
    expect(errors).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.any(String) } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.any(String) } },
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.any(String) } },
    ]);
    // Nothing on stdout but whole JSON-RPC lines.
    expect(server.pending()).toBe('');
    expect(server.stderr()).toMatch(/answered with a parse error/);
    server.child.stdin.end();
    expect((await server.exited).code).toBe(0);
  });

  it('answers params of the wrong form with -32602 in one line, not -32603 with a dump', async () => {
    const server = rawServer();
    server.send(JSON.stringify(INITIALIZE));
    await server.answer(1);
    server.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    server.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: GET_ACADEMY, arguments: 5 } }));
    server.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { arguments: {} } }));
    server.send(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: GET_ACADEMY, arguments: ['1'] } }));
    server.send(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'logging/setLevel', params: { level: 'loud' } }));
    // params that are not an object: the request's own id, never id null, which would leave the client waiting on 8.
    server.send('{"jsonrpc":"2.0","id":8,"method":"tools/call","params":"x"}');
    server.send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":["${GET_ACADEMY}"]}`);
    expect(await server.answer(8)).toEqual({ jsonrpc: '2.0', id: 8, error: { code: -32602, message: 'Invalid params for tools/call: params must be an object, not a string' } });
    expect(await server.answer(9)).toEqual({ jsonrpc: '2.0', id: 9, error: { code: -32602, message: 'Invalid params for tools/call: params must be an object, not an array' } });
    expect(server.messages().filter((message) => message.id === null)).toEqual([]);
    for (const [id, where] of [
      [2, 'params.arguments'],
      [3, 'params.name'],
      [4, 'params.arguments'],
      [5, 'params.level'],
    ] as const) {
      const { error } = (await server.answer(id)) as { error: { code: number; message: string } };
      expect(error.code, String(id)).toBe(-32602);
      expect(error.message).toMatch(new RegExp(`^Invalid params for [a-z/A-Z]+: ${where.replace('.', '\\.')}: `));
      expect(error.message).not.toMatch(/\n/);
    }
    // And it goes on serving.
    server.send(JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: GET_ACADEMY, arguments: { academyId: '1' } } }));
    expect((await server.answer(6)).result).toMatchObject({ structuredContent: { data: { id: '1' } } });
    server.child.stdin.end();
    expect((await server.exited).code).toBe(0);
  });

  it('skips a line longer than 4 MiB with an error answer, and keeps serving (the SDK alone would close at 10 MiB)', async () => {
    const server = rawServer();
    server.send(JSON.stringify(INITIALIZE));
    await server.answer(1);
    server.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    // 11 MiB in one line, written in pieces as a pipe carries it, then a call on the next line.
    const long = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: GET_ACADEMY, arguments: { academyId: 'x'.repeat(11 * 1024 * 1024) } } });
    server.send(long);
    server.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: GET_ACADEMY, arguments: { academyId: '1' } } }));
    expect((await server.answer(3)).result).toMatchObject({ structuredContent: { data: { id: '1' } } });
    expect(server.messages().filter((message) => message.error)).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: a line longer than 4 MiB was skipped' } },
    ]);
    expect(server.messages().some((message) => message.id === 2)).toBe(false);
    expect(server.stderr()).toMatch(/a line longer than 4 MiB was skipped/);
    server.child.stdin.end();
    expect((await server.exited).code).toBe(0);
  });

  it('ends with exit 0 when stdin closes, and with 143 on SIGTERM', async () => {
    // Nothing else ends a server that has answered: the end of its input, or the signal, is what does.
    const closing = rawServer();
    closing.send(JSON.stringify(INITIALIZE));
    await closing.answer(1);
    closing.child.stdin.end();
    expect(await closing.exited).toEqual({ code: 0, signal: null });

    const terminated = rawServer();
    terminated.send(JSON.stringify(INITIALIZE));
    await terminated.answer(1);
    terminated.child.kill('SIGTERM');
    expect((await terminated.exited).code).toBe(143);
  });

  /** The error in the answer to request 2, a tools/call sent after `initialize` on a server started with `args`, once stdin ended. */
  async function failureOfCall(args: string[], env: Record<string, string>, call: object) {
    const server = rawServer(args, env);
    server.send(JSON.stringify(INITIALIZE));
    server.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: call }));
    server.child.stdin.end();
    const { code } = await server.exited;
    const answer = server.messages().find((message) => message.id === 2)?.result as { isError: boolean; content: Array<{ text: string }> };
    expect({ code, isError: answer.isError }).toEqual({ code: 0, isError: true });
    return { error: JSON.parse(answer.content[0]!.text).error as Record<string, unknown>, lines: server.messages() };
  }

  it('with no key, still serves, and every tool says how to log in', async () => {
    const { error } = await failureOfCall([], {}, { name: WHOAMI, arguments: {} });
    expect(error).toMatchObject({ kind: 'unauthorized', next: expect.stringMatching(/gymctl auth login/) });
  });

  it.each([
    ['a key but no base URL', [], /no API base URL for profile "default"/],
    ['a profile the config file does not hold', ['--profile', 'work'], /there is no profile "work"/],
  ])('with %s, still serves, and every tool says what to fix and to restart it', async (_what, args, message) => {
    const { error, lines } = await failureOfCall(args, { GYMCTL_API_KEY: 'a-key-of-some-length' }, { name: GET_ACADEMY, arguments: { academyId: '1' } });
    expect(error).toMatchObject({ kind: 'usage', message: expect.stringMatching(message), next: expect.stringMatching(/restart this MCP server/) });
    expect(JSON.stringify(lines)).not.toContain('a-key-of-some-length');
  });
});

describe('gymctl mcp in the help, the man page and completion', () => {
  it('is listed as every command is, and takes the network options and --sandbox, not the output ones', async () => {
    expect(readFileSync(path.join(ROOT, 'dist', 'help.txt'), 'utf8')).toMatch(/^ {2}mcp \[options\] +serve the read operations as MCP tools/m);
    expect(readFileSync(path.join(ROOT, 'dist', 'gymctl.1'), 'utf8').replaceAll('\\-', '-')).toContain('gymctl mcp');
    const help = await runCli(['help', 'mcp'], config.dir);
    expect(help.stdout).toContain('Usage: gymctl mcp');
    for (const option of ['--sandbox', '--base-url', '--profile', '--timeout']) expect(help.stdout).toContain(option);
    expect(help.stdout).not.toContain('--format');
    const refused = await runCli(['mcp', '--json'], config.dir);
    expect(refused.code).toBe(2);
    expect((await runCli(['__complete', '--', ''], config.dir)).stdout.split('\n')).toContain('mcp');
  });
});
