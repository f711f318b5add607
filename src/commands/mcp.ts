/** `gymctl mcp`: the definition; the handler (mcp/run.ts), with the MCP SDK, loads when it runs. */
import { CONCURRENCY_OPTION, defineCommand, type FactoryRef } from './shared/define.js';

/** The command's own options, as commander hands them over (each checked when the command runs). */
export interface McpFlags {
  /** The sandbox's, served as such (a global flag). */
  sandbox?: boolean;
  /** `--http` alone is `true`; `--http 8808` the port's text. */
  http?: string | true;
  concurrency?: string;
  callTimeout?: string;
  maxAnswer?: string;
}

export const newCmdMcp = (f: FactoryRef) =>
  defineCommand(
    {
      name: 'mcp',
      description: "serve the read operations as MCP tools to an AI assistant, over stdio (or Streamable HTTP on loopback), with the profile's key (the assistant never sees it)",
      options: [
        ['--http [port]', 'serve Streamable HTTP on 127.0.0.1 instead of stdio, behind a bearer token (default port 8808)'],
        [CONCURRENCY_OPTION[0], 'requests at once to the API, across every call in flight, 1 to 64 (default 8)'],
        ['--call-timeout <duration>', 'time limit of one tool call, retries included, under the 60 s an assistant waits (default 45s)'],
        ['--max-answer <size>', 'most one tool result carries, both of its copies counted, such as 256KB or 2MB (default 1MB); a longer one is shortened'],
      ],
      examples: ['gymctl mcp', 'gymctl mcp --sandbox', 'gymctl mcp --profile work --call-timeout 20s --max-answer 256KB', 'gymctl mcp --http 8808'],
    },
    async (options: McpFlags) => (await import('./mcp/run.js')).runMcp(f(), options),
  );
