/**
 * The MCP server of `gymctl mcp`: the tools of tools.ts registered on the
 * official SDK's McpServer. The API session (base URL, key, client) is the
 * command's, made once before serving; no tool takes a key, a base URL or
 * a path, only ids, which are checked before any request.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { GymctlError } from '../api/errors.js';
import { redactText } from '../api/transport/redact.js';
import type { GymClient } from '../api/client.js';
import type { OperationDeclaration } from '../operations/declare.js';
import { asFailure, failureResult, toolFailure } from './failures.js';
import type { Gate } from './gate.js';
import type { McpLimits } from './limits.js';
import { type Send, toolsOf } from './tools.js';

/** What the tools call the API with: the command's client and key, or the failure that kept it from having them. */
export type Session = { client: Pick<GymClient, 'request'>; apiKey: string; explain?(failure: GymctlError): GymctlError } | { failure: GymctlError };

export interface McpServerOptions {
  operations: readonly OperationDeclaration[];
  session: Session;
  version: string;
  /** One line for stderr (never stdout, which is the protocol's); a failed call's line also goes to the client as an MCP log message. */
  log(line: string): void;
  /** Aborted when the server stops: every call in flight is aborted. */
  signal?: AbortSignal;
  /** The server's limits (limits.ts); the defaults when absent. */
  limits?: McpLimits;
  /** The requests in flight at the API: one gate for every server of the process (HTTP makes one server a session); one of its own when absent. */
  gate?: Gate;
}

const INSTRUCTIONS =
  'Read-only tools over a gym (academy) management API, through the gymctl CLI and the API key it is configured with. Start with whoami: it says which academies the key can see (academyIds), the ids the academy tools take. Ids are strings of digits. A failed call is a result with isError whose text is JSON with a message, a kind, a correlationId and the next step.';

/** `value` with every string holding the key redacted: a server that echoes the key in its data does not get it to the model. */
function redactDeep(key: string, value: unknown): unknown {
  if (typeof value === 'string') return redactText(key, value);
  if (Array.isArray(value)) return value.map((item) => redactDeep(key, item));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([name, field]) => [redactText(key, name), redactDeep(key, field)]));
  return value;
}

export interface GymctlMcpServer {
  server: McpServer;
  /** The tools' names, in the order listed. */
  tools: string[];
  /** Resolves once every call in flight has answered, or after `ms`, whichever is first. */
  settled(ms: number): Promise<void>;
}

export function createMcpServer(options: McpServerOptions): GymctlMcpServer {
  const { session, log } = options;
  const inFlight = new Set<Promise<unknown>>();
  const server = new McpServer({ name: 'gymctl', version: options.version }, { instructions: INSTRUCTIONS, capabilities: { logging: {} } });
  const apiKey = 'failure' in session ? undefined : session.apiKey;
  const tools = toolsOf(options.operations);
  for (const tool of tools) {
    const answer = async (args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> => {
      try {
        if ('failure' in session) throw session.failure;
        const send: Send = (operation) => session.client.request(operation, { signal: options.signal ? AbortSignal.any([signal, options.signal]) : signal });
        const structured = redactDeep(session.apiKey, await tool.run(args, send)) as Record<string, unknown>;
        return { structuredContent: structured, content: [{ type: 'text', text: JSON.stringify(structured) }] };
      } catch (error) {
        const failure = asFailure(error);
        const explained = 'failure' in session ? failure : (session.explain?.(failure) ?? failure);
        const failed = toolFailure(explained, apiKey, 'failure' in session);
        const line = `${tool.name}: ${failed.message}`;
        log(line);
        // And to the client, for its own log (at the level it set with logging/setLevel): the same line, the key already
        // redacted. Not for a call the client cancelled itself.
        if (failed.kind !== 'aborted') void server.sendLoggingMessage({ level: 'warning', logger: 'gymctl', data: line }).catch(() => {});
        return failureResult(failed);
      }
    };
    const call = (args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> => {
      const answered = answer(args, signal);
      inFlight.add(answered);
      void answered.finally(() => inFlight.delete(answered));
      return answered;
    };
    const config = {
      title: tool.title,
      description: tool.description,
      outputSchema: tool.outputSchema,
      annotations: { title: tool.title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    };
    if (tool.inputSchema) server.registerTool(tool.name, { ...config, inputSchema: tool.inputSchema }, (args, extra) => call(args as Record<string, unknown>, extra.signal));
    else server.registerTool(tool.name, config, (extra) => call({}, extra.signal));
  }
  return {
    server,
    tools: tools.map((tool) => tool.name),
    async settled(ms) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...inFlight]), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
      clearTimeout(timer);
    },
  };
}
