/** The built `gymctl mcp`, as an assistant runs it: the SDK's own Client over its StdioClientTransport, spawning bin/gymctl.cjs. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { BIN, cleanEnv } from './cli.js';

export interface SpawnedMcp {
  client: Client;
  /** What the server wrote on stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

export async function spawnMcp(args: string[], configDir: string, env: Record<string, string | undefined> = {}): Promise<SpawnedMcp> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    env: cleanEnv(configDir, env) as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'gymctl-e2e', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** A failed call's `error` object (the JSON of its text). */
export function toolError(result: Awaited<ReturnType<Client['callTool']>>): Record<string, unknown> {
  const { isError, content } = result as CallToolResult;
  if (!isError) throw new Error(`expected a failure, got ${JSON.stringify(result).slice(0, 300)}`);
  return (JSON.parse((content[0] as { text: string }).text) as { error: Record<string, unknown> }).error;
}
