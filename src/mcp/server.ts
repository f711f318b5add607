/** The server of `gymctl mcp` on the official SDK: no tool takes a key, a base URL or a path, only ids, checked before any request. */
import { setMaxListeners } from 'node:events';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { type CallToolResult, ListToolsRequestSchema, type ServerNotification, type ServerRequest, type Tool } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/mini';
import { abortedError, GymctlError } from '../api/errors.js';
import { redactText } from '../api/transport/redact.js';
import type { GymClient } from '../api/client.js';
import type { OperationDeclaration } from '../operations/declare.js';
import { INVISIBLE, caret, codePoint } from '../output/sanitize.js';
import { asFailure, callTimedOut, failureResult, toolFailure } from './failures.js';
import { fitAnswer, grouped } from './fit.js';
import { Gate } from './gate.js';
import { type McpLimits, parseLimits } from './limits.js';
import { guardRequests, markRefusedParams } from './protocol.js';
import { mapDeep } from './shapes.js';
import { type CallContext, FAILURES, SHORTENED, type Send, toolsOf } from './tools.js';

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

const INSTRUCTIONS = [
  'Read-only tools over a gym (academy) management API, through the gymctl CLI and the API key it is configured with.',
  'Start with whoami: it says which academies the key can see (academyIds), the ids the academy tools take; list_academies answers all of them at once.',
  'Ids are strings of digits.',
  FAILURES,
  SHORTENED,
].join(' ');

/** Controls but tab and line feed, which data may hold; the rest of what hides or reorders text. */
const DATA_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** Text from the API with the key redacted and controls shown (`^[`): no escape sequence reaches the client's screen. */
const cleanText = (key: string, text: string) => redactText(key, text).replace(DATA_CONTROL, caret).replace(INVISIBLE, codePoint);

/** `value` with every string cleaned: a server that echoes the key in its data does not get it to the model. */
const cleanDeep = (key: string, value: unknown) =>
  mapDeep(
    value,
    (leaf) => (typeof leaf === 'string' ? cleanText(key, leaf) : leaf),
    (name) => cleanText(key, name),
  );

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

const jsonSchema = (schema: z.core.$ZodType, io: 'input' | 'output') => z.toJSONSchema(schema, { target: 'draft-2020-12', io }) as Tool['inputSchema'];

/** A progress notification at most this often while records settle, and at least this often (PROGRESS_AT_LEAST_MS) while none do. */
export const PROGRESS_EVERY_MS = 1000;
export const PROGRESS_AT_LEAST_MS = 4000;

/**
 * `notifications/progress` for a call whose request carries a progressToken: records settled, of how many, and a
 * message. Progress must increase with each one, so while no record settles it creeps toward the next whole record
 * (done + k/(k+1)), never reaching it. `stop()` ends them with the call.
 */
export function progressOf(extra: Extra, noun: string): { report: NonNullable<CallContext['progress']>; stop(): void } | undefined {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  let done = 0;
  let total = 0;
  let sent = -1;
  let idle = 0;
  let sentAt = 0;
  const send = () => {
    idle = done > sent ? 0 : idle + 1;
    sent = done > sent ? done : done + idle / (idle + 1);
    sentAt = Date.now();
    const message = `${grouped(done)} of ${grouped(total)} ${noun} fetched`;
    void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: sent, total, message } }).catch(() => {});
  };
  const timer = setInterval(() => {
    // Nothing before the tool says how many records it fetches (a tool fetching one never does).
    if (sent < 0) return;
    const since = Date.now() - sentAt;
    if ((done > sent && since >= PROGRESS_EVERY_MS) || since >= PROGRESS_AT_LEAST_MS) send();
  }, PROGRESS_EVERY_MS / 4);
  timer.unref();
  return {
    report(settled, of) {
      [done, total] = [settled, of];
      if (sent < 0) send();
    },
    stop: () => clearInterval(timer),
  };
}

export type GymctlMcpServer = ReturnType<typeof createMcpServer>;

export function createMcpServer(options: McpServerOptions) {
  const { session, log } = options;
  const limits = options.limits ?? parseLimits({});
  const gate = options.gate ?? new Gate(limits.concurrency);
  const inFlight = new Set<Promise<unknown>>();
  const server = new McpServer({ name: 'gymctl', version: options.version }, { instructions: INSTRUCTIONS, capabilities: { logging: {} } });
  const apiKey = 'failure' in session ? undefined : session.apiKey;
  const listed: Tool[] = [];
  for (const tool of toolsOf(options.operations)) {
    const answer = async (args: Record<string, unknown>, extra: Extra): Promise<CallToolResult> => {
      const cancelled = extra.signal;
      // The call's time limit, retries and waits for the gate included: it ends with gymctl's own failure before the client gives up.
      const deadline = AbortSignal.timeout(limits.callTimeoutMs);
      // A refused key is refused for every id: the call's other requests are cancelled, and it fails with the refusal.
      const refused = new AbortController();
      const signal = AbortSignal.any([cancelled, deadline, refused.signal, ...(options.signal ? [options.signal] : [])]);
      // One listener for each of the call's requests (every academy of a key, say), for the call's life only.
      setMaxListeners(0, signal);
      const progress = progressOf(extra, 'records');
      // Only the time limit: a request it aborted is left out of the answer, which holds what was fetched by then.
      const timedOut = () => deadline.aborted && !cancelled.aborted && !refused.signal.aborted && !options.signal?.aborted;
      try {
        if ('failure' in session) throw session.failure;
        const send: Send = (operation) =>
          gate
            .run(() => session.client.request(operation, { signal }), signal)
            .catch((error: unknown) => {
              if (error instanceof GymctlError && error.kind === 'unauthorized') refused.abort(error);
              throw error instanceof GymctlError ? error : abortedError(signal.reason, operation.subject, operation.id);
            });
        const { unfetched, ...answer } = await tool.run(args, send, { timedOut, ...(progress ? { progress: progress.report } : {}) });
        const how = { ...tool.shortening(args), timeLimitMs: limits.callTimeoutMs };
        return fitAnswer(cleanDeep(session.apiKey, answer) as typeof answer, limits.maxAnswerBytes, how, unfetched);
      } catch (error) {
        let failure = asFailure(refused.signal.aborted ? refused.signal.reason : error);
        if (failure.kind === 'aborted' && timedOut()) failure = callTimedOut(failure, limits.callTimeoutMs);
        const explained = 'failure' in session ? failure : (session.explain?.(failure) ?? failure);
        const failed = toolFailure(explained, apiKey, 'failure' in session);
        const line = `${tool.name}: ${failed.message}`;
        log(line);
        // The same line to the client's log, but for a call it cancelled itself.
        if (failed.kind !== 'aborted') void server.sendLoggingMessage({ level: 'warning', logger: 'gymctl', data: line }).catch(() => {});
        return failureResult(failed);
      } finally {
        progress?.stop();
      }
    };
    const call = (args: Record<string, unknown>, extra: Extra): Promise<CallToolResult> => {
      const answered = answer(args, extra);
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
    if (tool.inputSchema) server.registerTool(tool.name, { ...config, inputSchema: tool.inputSchema }, (args, extra) => call(args as Record<string, unknown>, extra));
    else server.registerTool(tool.name, config, (extra) => call({}, extra));
    listed.push({
      name: tool.name,
      ...config,
      inputSchema: jsonSchema(tool.inputSchema ?? z.object({}), 'input'),
      outputSchema: jsonSchema(tool.outputSchema, 'output'),
      execution: { taskSupport: 'forbidden' },
    } as Tool);
  }
  // The tools are the declarations': the list never changes while the server runs. It is listed as the SDK lists it,
  // but in JSON Schema 2020-12, the protocol's default since 2025-11-25, where the SDK writes draft-07.
  server.server.registerCapabilities({ tools: { listChanged: false } });
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  return {
    server,
    /** Connects to a transport whose requests with malformed params are answered -32602 before the SDK sees them (protocol.ts). */
    async connect(transport: Transport) {
      await server.connect(transport);
      guardRequests(transport);
    },
    /** A message as read from an HTTP body, its params marked where the SDK would refuse them, for connect's guard to answer. */
    received: markRefusedParams,
    /** Resolves once every call in flight has answered, or after `ms`, whichever is first. */
    async settled(ms: number) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...inFlight]), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
      clearTimeout(timer);
    },
  };
}
