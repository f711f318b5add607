/** `gymctl mcp`: the definition; the handler (mcp/run.ts), with the MCP SDK, loads when it runs. */
import { defineCommand, type FactoryRef } from './shared/define.js';

export const newCmdMcp = (f: FactoryRef) =>
  defineCommand(
    {
      name: 'mcp',
      description: "serve the read operations as MCP tools to an AI assistant, over stdio, with the profile's key (the assistant never sees it)",
      examples: ['gymctl mcp', 'gymctl mcp --sandbox', 'gymctl mcp --profile work --timeout 10s'],
    },
    async () => (await import('./mcp/run.js')).runMcp(f()),
  );
