/**
 * `gymctl mcp --sandbox` through the MCP Inspector's CLI mode
 * (@modelcontextprotocol/inspector-cli, a devDependency): another client
 * than the SDK's Client, as a person checking a server runs it. The
 * Inspector's v2 package (`@modelcontextprotocol/inspector --cli`) brings
 * a web UI's build tools (vite, react, ink), so its v1 CLI is used here.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, cleanEnv, tempConfigDir } from '../helpers/cli.js';
import { declaredTools } from '../helpers/mcp.js';

const config = tempConfigDir();
afterAll(() => config.remove());

const INSPECTOR = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'inspector-cli', 'build', 'index.js');

/** One Inspector call (`--method …`) against `gymctl mcp --sandbox`; its stdout parsed. */
function inspect(args: string[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    // It reads its own package.json from ../package.json when the working folder has one there, else from two levels up, which
    // only the Inspector's monorepo has: run from test/, whose parent holds a package.json.
    const child = spawn(process.execPath, [INSPECTOR, process.execPath, BIN, 'mcp', '--sandbox', ...args], {
      cwd: path.join(ROOT, 'test'),
      env: cleanEnv(config.dir),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    // No timer of its own: one that hangs is ended with its test (test/helpers/processes.ts).
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`the Inspector exited ${code}: ${stderr}${stdout}`));
      else resolve(JSON.parse(stdout) as Record<string, unknown>);
    });
  });
}

describe('the MCP Inspector CLI', () => {
  it('lists the tools', async () => {
    const { tools } = (await inspect(['--method', 'tools/list'])) as { tools: Array<{ name: string; annotations: Record<string, boolean> }> };
    expect(tools.map((tool) => tool.name)).toEqual(declaredTools().map((tool) => tool.name));
    for (const tool of tools) expect(tool.annotations.readOnlyHint).toBe(true);
  });

  it('calls each tool and gets its structured answer; a bad id is a tool error', async () => {
    const call = (name: string, ...toolArgs: string[]) => inspect(['--method', 'tools/call', '--tool-name', name, ...(toolArgs.length ? ['--tool-arg', ...toolArgs] : [])]);
    // Side by side: each call is an Inspector process, which takes a second or two to start.
    const [me, academy, several, family, refused] = await Promise.all([
      call('whoami'),
      call('get_academy', 'academyId=3'),
      call('get_academies', 'academyIds=["1","2"]'),
      call('list_family', 'memberId=501'),
      call('get_academy', 'academyId=0') as Promise<{ isError: boolean; content: Array<{ text: string }> }>,
    ]);
    expect(me).toMatchObject({ structuredContent: { data: { academyIds: ['1', '2', '3', '4'] } } });
    expect(academy).toMatchObject({ structuredContent: { data: { id: '3', name: 'Shoreditch Martial Arts' } } });
    expect(several).toMatchObject({ structuredContent: { data: [{ id: '1' }, { id: '2' }], notFound: [] } });
    expect(family).toMatchObject({ structuredContent: { data: [{ id: '502' }, { id: '503' }] } });
    expect(refused.isError).toBe(true);
    expect(JSON.parse(refused.content[0]!.text).error).toMatchObject({ kind: 'usage' });
  });
});
