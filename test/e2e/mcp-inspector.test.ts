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
import { batchName, toolName } from '../../src/mcp/tools.js';
import { OPERATIONS } from '../../src/operations/index.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { declaredTools } from '../helpers/mcp.js';
import { sampleIds } from '../helpers/surfaces.js';

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
    // Each tool with ids the sandbox answers for its operation (the demo data's), as the surfaces test finds them.
    const sandbox = await startSandbox({ host: '127.0.0.1', port: 0 });
    const plans = await Promise.all(
      OPERATIONS.flatMap((declaration) => {
        const idsOf = () => sampleIds(declaration, sandbox.url).then((ids) => (ids ?? []).map(String));
        const own = idsOf().then((ids) => ({ declaration, name: toolName(declaration), shape: 'one' as const, ids: ids.slice(0, 1) }));
        const batch = batchName(declaration);
        return batch ? [own, idsOf().then((ids) => ({ declaration, name: batch, shape: 'batch' as const, ids }))] : [own];
      }),
    ).finally(() => sandbox.close());
    const argsOf = ({ declaration, shape, ids }: (typeof plans)[number]) =>
      !declaration.param ? [] : shape === 'batch' ? [`${declaration.param.name}s=${JSON.stringify(ids)}`] : [`${declaration.param.name}=${ids[0]}`];
    const withId = plans.find((plan) => plan.declaration.param)!;
    // Side by side: each call is an Inspector process, which takes a second or two to start.
    const [refused, ...answers] = await Promise.all([
      call(withId.name, `${withId.declaration.param!.name}=0`) as Promise<{ isError: boolean; content: Array<{ text: string }> }>,
      ...plans.map((plan) => call(plan.name, ...argsOf(plan)) as Promise<{ isError?: boolean; structuredContent: { data: unknown; notFound?: unknown } }>),
    ]);
    expect(plans.map((plan) => plan.ids.length > 0 || !plan.declaration.param)).not.toContain(false);
    plans.forEach((plan, i) => {
      const { isError, structuredContent } = answers[i]!;
      expect(isError ?? false, plan.name).toBe(false);
      const { data } = structuredContent;
      if (plan.shape === 'batch')
        expect(structuredContent, plan.name).toEqual(expect.objectContaining({ notFound: [], data: plan.ids.map((id) => expect.objectContaining({ id })) }));
      else if (plan.declaration.list) expect((data as unknown[]).length, plan.name).toBeGreaterThan(0);
      else if (plan.declaration.param) expect(data, plan.name).toMatchObject({ id: plan.ids[0] });
      else expect(typeof data, plan.name).toBe('object');
      // Ids as text, however large (a number would lose digits past 2^53).
      expect(JSON.stringify(data), plan.name).not.toMatch(/"id":\d/);
    });
    expect(refused.isError).toBe(true);
    expect(JSON.parse(refused.content[0]!.text).error).toMatchObject({ kind: 'usage' });
  });
});
