/**
 * `gymctl mcp`: an MCP server whose tools are the declared operations (mcp/tools.ts), on stdio or, with --http, over
 * Streamable HTTP on loopback (mcp/http.ts). Logs go to stderr.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { GymctlError } from '../../api/errors.js';
import type { Setting } from '../../config/settings.js';
import type { Factory } from '../../factory.js';
import { Gate } from '../../mcp/gate.js';
import { parseLimits } from '../../mcp/limits.js';
import { boundedLines, INVALID_REQUEST, PARSE_ERROR, unreadable } from '../../mcp/protocol.js';
import { createMcpServer, type McpServerOptions, type Session } from '../../mcp/server.js';
import { toolsOf } from '../../mcp/tools.js';
import { OPERATIONS } from '../../operations/index.js';
import { sanitizeLine } from '../../output/sanitize.js';
import { VERSION } from '../../version.js';
import type { McpFlags } from '../mcp.js';
import type { Listen } from './http.js';

/** A --call-timeout over this is said to outlast the 60 s common clients wait for an answer (with room for it to reach them). */
const CLIENT_WAIT_MARGIN_MS = 55_000;

/** The longest line read on stdin: a call takes a few ids, and the SDK's reader closes at 10 MiB. */
const MAX_LINE_BYTES = 4 * 1024 * 1024;

/**
 * The session the tools use, made once. A key or settings that cannot be had (no key, no base URL, a profile not in the file)
 * are kept for every tool to report: an assistant shows a server that ended at start as failed, its stderr nowhere the user looks.
 */
async function openSession(f: Factory): Promise<(Session & { baseUrl: Setting<string> }) | { failure: GymctlError }> {
  try {
    const { client, apiKey, baseUrl, explain } = await f.client();
    return { client, apiKey: apiKey.value, explain, baseUrl };
  } catch (error) {
    if (error instanceof GymctlError && (error.kind === 'unauthorized' || error.kind === 'usage')) return { failure: error };
    throw error;
  }
}

/** What either transport serves: the options every server is made from (the session, the limits, the gate), and the log. */
interface Serving {
  f: Factory;
  options: McpServerOptions;
  log(line: string): void;
  /** The line that says what is served on `where`: or, when the session cannot be used, what every tool will say. */
  said(where: string): string;
}

/** The session and limits every transport shares, then stdio or --http; a bad --http value or GYMCTL_MCP_TOKEN is a usage error before anything starts. */
export async function runMcp(f: Factory, flags: McpFlags = {}): Promise<void> {
  const log = (line: string) => f.io.err(`${sanitizeLine(`gymctl mcp: ${line}`)}\n`);
  const limits = parseLimits(flags);
  if (limits.callTimeoutMs > CLIENT_WAIT_MARGIN_MS) {
    log(
      `warning: --call-timeout ${flags.callTimeout} is over 55 s: common MCP clients (the official SDK's among them) give up on a call after 60 s unless the client asks for progress, so a call that long may end without its answer`,
    );
  }
  const http = flags.http === undefined ? undefined : await import('./http.js');
  const listen = http?.parseListen(flags.http!);
  const token = http?.tokenOf(f.env);
  const session = await openSession(f);
  const stopped = new AbortController();
  // One set of options for every server: HTTP makes a server a session, all of them with this gate and this signal.
  const options: McpServerOptions = {
    operations: OPERATIONS,
    session,
    version: VERSION,
    log,
    limits,
    gate: new Gate(limits.concurrency),
    signal: AbortSignal.any([f.signal, stopped.signal]),
  };
  const said = (where: string) => {
    if ('failure' in session) return `${session.failure.kind === 'usage' ? 'settings that cannot be used' : 'no API key'}, so every tool will say so: ${session.failure.message}`;
    const { baseUrl } = session;
    const tools = toolsOf(OPERATIONS).map((tool) => tool.name);
    return `serving ${tools.length} tools (${tools.join(', ')}) on ${where} for ${flags.sandbox ? 'the sandbox' : new URL(baseUrl.value).origin} (base URL from ${baseUrl.origin ?? baseUrl.source})`;
  };
  const serving: Serving = { f, options, log, said };
  if (http && listen && token) await serveHttp(serving, http, listen, token);
  else await serveStdio(serving, stopped);
}

/** Streamable HTTP until Ctrl-C or SIGTERM (130, 143); the server, its sessions and connections are closed as the run ends (a disposer). */
async function serveHttp(
  { f, options, log, said }: Serving,
  http: typeof import('./http.js'),
  listen: Listen,
  { token, generated }: { token: string; generated: boolean },
): Promise<void> {
  const server = await http.serveHttp({ listen, token, log, newServer: () => createMcpServer(options) });
  f.onDispose(async () => {
    await server.close();
    log('stopped');
  });
  if ('failure' in options.session) log(`listening on ${server.url}`);
  log(said(server.url));
  // Printed once, here, and nowhere else; a token of the user's own (GYMCTL_MCP_TOKEN) is never printed.
  if (generated) log(`every request needs the header "Authorization: Bearer ${token}" (a token made for this run; set ${http.TOKEN_VARIABLE} to choose one)`);
  else log(`every request needs the header "Authorization: Bearer <the token in ${http.TOKEN_VARIABLE}>"`);
  if (f.io.stderrIsTTY) log('Ctrl-C stops it');
  await new Promise<never>((_, reject) => {
    void server.failed.catch(reject);
    if (f.signal.aborted) reject(f.signal.reason);
    else f.signal.addEventListener('abort', () => reject(f.signal.reason), { once: true });
  });
}

/** stdio: until stdin ends (exit 0) or SIGTERM (143). */
async function serveStdio({ f, options, log, said }: Serving, stopped: AbortController): Promise<void> {
  const { server, settled, connect } = createMcpServer(options);
  const stdin = f.io.stdin as NodeJS.ReadStream;
  // Whole lines only, each at most MAX_LINE_BYTES: a longer one is skipped with an error answer, and serving goes on.
  const lines = boundedLines(MAX_LINE_BYTES, () => {
    void transport.send(unreadable(INVALID_REQUEST, `Invalid Request: a line longer than ${MAX_LINE_BYTES / (1024 * 1024)} MiB was skipped`)).catch(() => {});
    log(`a line longer than ${MAX_LINE_BYTES / (1024 * 1024)} MiB was skipped, with an error answer`);
  });
  stdin.pipe(lines);
  const transport = new StdioServerTransport(lines as unknown as NodeJS.ReadStream, f.io.stdout as NodeJS.WriteStream);
  // What is being written: a call's answer is sent after its handler returns, so that stdin's end waits for it too.
  const sending = new Set<Promise<void>>();
  const send = transport.send.bind(transport);
  transport.send = (...message) => {
    const sent = send(...message);
    sending.add(sent);
    void sent.catch(() => {}).finally(() => sending.delete(sent));
    return sent;
  };
  // A line that is not a JSON-RPC message gets an error answer (id null: it has none that can be read), and serving goes on.
  transport.onerror = (error) => {
    const parse = error instanceof SyntaxError;
    if (parse || error.name === 'ZodError') {
      const reply = parse ? unreadable(PARSE_ERROR, 'Parse error: the line is not JSON') : unreadable(INVALID_REQUEST, 'Invalid Request: not a JSON-RPC 2.0 message');
      void transport.send(reply).catch(() => {});
      log(parse ? 'a line that is not JSON was answered with a parse error' : 'a line that is not a JSON-RPC message was answered with an error');
    } else log(error.message);
  };
  const ended = new Promise<void>((resolve) => {
    lines.once('end', resolve);
    stdin.once('close', () => {
      if (!lines.writableEnded) lines.end();
    });
    f.io.stdout.once('error', resolve);
    transport.onclose = resolve;
  });
  await connect(transport);
  if (f.io.stdinIsTTY) log('this speaks the Model Context Protocol on stdin and stdout, for an AI assistant to start (see the README); Ctrl-C stops it');
  log(said('stdio'));
  await ended;
  // stdin ended: the calls in flight may answer if they do so at once; the process ends within a second either way.
  await settled(500);
  // The SDK sends an answer a few promise steps after its handler returns: let it, and let the writes finish.
  await new Promise((resolve) => setImmediate(resolve));
  await Promise.allSettled([...sending]);
  stopped.abort();
  await server.close();
}
