/**
 * The client's methods are declared, one per declared operation and no other, each with its documentation: the
 * TypeScript language service shows it on hover, and go-to-definition lands on the method.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createClient, GymClient, type OperationMethods } from '../../src/api/client.js';
import { OPERATIONS } from '../../src/operations/index.js';
import { ROOT } from '../helpers/cli.js';

/** The client's own methods that run no declared operation. */
const GENERAL = ['constructor', 'request', 'ask', 'close'];

describe("the client's methods", () => {
  it('are one per declared operation, and no other', () => {
    const methods = Object.getOwnPropertyNames(GymClient.prototype).filter((name) => !GENERAL.includes(name));
    expect(methods.sort()).toEqual(OPERATIONS.map((declaration) => declaration.client.method).sort());
  });

  it("each is written out with its declaration's type, in either id mode (the type-check fails otherwise)", () => {
    // A declaration whose method is not written out has one at run time only (client.ts), and fails to compile here.
    const numbers: OperationMethods<'number'> = createClient({ baseUrl: 'https://api.example.com', apiKey: 'k' });
    const bigints: OperationMethods<'bigint'> = createClient({ baseUrl: 'https://api.example.com', apiKey: 'k', ids: 'bigint' });
    for (const methods of [numbers, bigints]) for (const declaration of OPERATIONS) expect(typeof methods[declaration.client.method]).toBe('function');
  });
});

/** A TypeScript language server (tsc --lsp) on stdio: JSON-RPC requests and their results. */
function languageServer() {
  const child: ChildProcess = spawn(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '--lsp', '--stdio'], { stdio: ['pipe', 'pipe', 'ignore'] });
  let buffer = Buffer.alloc(0);
  let next = 1;
  const waiting = new Map<number, (result: unknown) => void>();
  const send = (message: object) => {
    const text = JSON.stringify({ jsonrpc: '2.0', ...message });
    child.stdin!.write(`Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
  };
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      const end = buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/Content-Length: (\d+)/i.exec(buffer.subarray(0, end).toString())?.[1]);
      if (buffer.length < end + 4 + length) return;
      const message = JSON.parse(buffer.subarray(end + 4, end + 4 + length).toString()) as { id?: number; method?: string; result?: unknown };
      buffer = buffer.subarray(end + 4 + length);
      // The server's own requests (configuration, progress) are answered with nothing.
      if (message.method !== undefined && message.id !== undefined) send({ id: message.id, result: null });
      else if (message.id !== undefined) waiting.get(message.id)?.(message.result);
    }
  });
  const request = (method: string, params: unknown) =>
    new Promise<unknown>((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      send({ id, method, params });
    });
  return { request, notify: (method: string, params: unknown) => send({ method, params }), stop: () => child.kill() };
}

describe('to the TypeScript language service', () => {
  it('each method shows its documentation on hover, and go-to-definition lands on its declaration', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'gymctl-hover-'));
    const server = languageServer();
    try {
      const lines = [
        `import { createClient } from ${JSON.stringify(path.join(ROOT, 'src', 'index.js'))};`,
        "const client = createClient({ baseUrl: 'https://api.example.com', apiKey: 'k' });",
        ...OPERATIONS.map((declaration) => `export const ${declaration.name} = client.${declaration.client.method};`),
      ];
      const file = path.join(folder, 'check.ts');
      writeFileSync(file, `${lines.join('\n')}\n`);
      writeFileSync(path.join(folder, 'package.json'), '{"type":"module"}\n');
      const config = {
        extends: path.join(ROOT, 'tsconfig.json'),
        compilerOptions: { rootDir: path.parse(folder).root, typeRoots: [path.join(ROOT, 'node_modules', '@types')] },
        files: ['check.ts'],
      };
      writeFileSync(path.join(folder, 'tsconfig.json'), JSON.stringify(config));
      const uri = pathToFileURL(file).href;
      await server.request('initialize', { processId: process.pid, rootUri: pathToFileURL(folder).href, capabilities: {} });
      server.notify('initialized', {});
      server.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'typescript', version: 1, text: readFileSync(file, 'utf8') } });
      for (const [index, declaration] of OPERATIONS.entries()) {
        const { method } = declaration.client;
        const line = index + 2;
        const position = { line, character: lines[line]!.indexOf(`.${method}`) + 2 };
        const hover = (await server.request('textDocument/hover', { textDocument: { uri }, position })) as { contents: { value: string } } | null;
        const shown = hover?.contents.value ?? '';
        expect(shown, method).toMatch(new RegExp(`GymClient(<[^>]*>)?\\.${method}\\(`));
        // The documentation: what it asks (its path), its errors, and an example calling it.
        expect(shown, method).toContain(declaration.path);
        expect(shown, method).toContain('GymApiError');
        expect(shown, method).toMatch(new RegExp(`@example[\\s\\S]*client\\.${method}\\(`));
        const found = (await server.request('textDocument/definition', { textDocument: { uri }, position })) as Array<{ uri: string; range: { start: { line: number } } }>;
        expect(found, method).toHaveLength(1);
        const [definition] = found;
        const text = readFileSync(fileURLToPath(definition!.uri), 'utf8').split('\n')[definition!.range.start.line]!;
        expect(text.trim(), method).toMatch(new RegExp(`^${method}\\(`));
      }
      await server.request('shutdown', null);
    } finally {
      server.stop();
      rmSync(folder, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('createClient', () => {
  it('refuses a base URL with credentials, a query or a fragment, which requests would leave out, before any request', () => {
    for (const baseUrl of [
      'https://user:pw@api.gym.test',
      'https://api.gym.test/v1?tenant=7',
      'https://api.gym.test/v1?',
      'https://api.gym.test/v1#x',
      new URL('https://api.gym.test/v1?tenant=7'),
    ]) {
      expect(() => createClient({ baseUrl, apiKey: 'k' }), String(baseUrl)).toThrow(
        expect.objectContaining({ kind: 'usage', message: 'invalid base URL: it must not contain credentials, a query or a fragment' }),
      );
    }
    expect(() => createClient({ baseUrl: 'https://api.gym.test/v1/', apiKey: 'k' })).not.toThrow();
  });
});
