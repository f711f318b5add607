/** An MCP client of gymctl's tools in this process: the SDK's Client over its in-memory transport, the server made from the declarations. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createClient } from '../../src/api/client.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { type ToolSpec, toolsOf } from '../../src/mcp/tools.js';
import type { OperationDeclaration } from '../../src/operations/declare.js';
import { OPERATIONS } from '../../src/operations/index.js';

/** The tools the declarations make, in their order: what `gymctl mcp` lists, however many operations are declared. */
export const declaredTools = (): ToolSpec[] => toolsOf(OPERATIONS);

export interface InProcessMcp {
  client: Client;
  /** What the server logged (its stderr). */
  log: string[];
  close(): Promise<void>;
}

/** Connects a client to a server whose tools call `baseUrl` with `apiKey`. */
export async function inProcessMcp(operations: readonly OperationDeclaration[], baseUrl: string, apiKey: string): Promise<InProcessMcp> {
  const api = createClient({ baseUrl, apiKey, retries: 0 });
  const log: string[] = [];
  const { server, connect } = createMcpServer({ operations, session: { client: api, apiKey }, version: '0.0.0', log: (line) => log.push(line) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await connect(serverSide);
  const client = new Client({ name: 'gymctl-test', version: '0.0.0' });
  await client.connect(clientSide);
  return {
    client,
    log,
    async close() {
      await client.close();
      await server.close();
      await api.close();
    },
  };
}
