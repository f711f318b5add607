/**
 * The command matrix of issue 32: each case is a few commands run one after
 * another in one fresh home folder, by the single executable and by the npm
 * build, at a pipe and at a terminal.
 */
import { toolName } from '../../src/mcp/tools.js';
import { academy } from '../../src/operations/index.js';
import { DEMO_KEY } from '../../src/sandbox/demo-data.js';
import type { Command } from './run.js';

export interface Case {
  name: string;
  commands: readonly Command[];
  /**
   * What may differ between two runs of the SAME build, replaced in both
   * outputs before they are compared: nothing else is masked.
   */
  mask?: (text: string) => string;
  /** A text the (masked) output of the npm build shows: the case reached what it means to test. */
  shows?: string;
  /** Each build's run gets a Secret Service of its own (test/helpers/keyring.ts): gnome-keyring on a D-Bus session bus. */
  keyring?: boolean;
}

/** The correlation ID the loopback server (matrix.test.ts) sends with every answer, in place of a random one. */
export const FIXED_ID = '01900000-0000-7000-8000-000000000000';

/**
 * A correlation ID as the in-process sandbox makes it (a random UUID v7 each
 * request). The loopback server sends a fixed one (matrix.test.ts); only the
 * --sandbox 404 case, whose id no test can fix, masks it.
 */
const CORRELATION_ID = /[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/g;
const maskCorrelationId = (text: string) => text.replace(CORRELATION_ID, '<correlation id>');

/** A 300-id batch, ids 1 to 4 over and over, as test/e2e/terminal.test.ts feeds it. */
export const BATCH = `${Array.from({ length: 300 }, (_, i) => (i % 4) + 1).join('\n')}\n`;

/** An MCP client's first lines, then four requests, as JSON-RPC over stdio (one message a line). */
const MCP_SESSION = `${[
  { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'matrix', version: '1' } } },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, method: 'tools/list' },
  { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: toolName(academy), arguments: { [academy.param.name]: '999' } } },
  { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: toolName(academy), arguments: { [academy.param.name]: '../me' } } },
]
  .map((message) => JSON.stringify(message))
  .join('\n')}\nnot json\n`;

/**
 * `proxyUrl`: a CONNECT proxy that tunnels every request to the loopback
 * server (matrix.test.ts), which the host gym.test is reached through alone.
 */
export function matrix(baseUrl: string, proxyUrl = 'http://127.0.0.1:1'): Case[] {
  /** A key and a base URL from the environment: requests go to the loopback server. */
  const loopback = { GYMCTL_API_KEY: DEMO_KEY, GYMCTL_BASE_URL: baseUrl };
  const run = (code: number, ...args: string[]): Command => ({ args, code });
  const atLoopback = (code: number, ...args: string[]): Command => ({ args, code, env: loopback });
  return [
    { name: 'whoami', commands: [run(0, 'whoami', '--sandbox'), atLoopback(0, 'whoami', '--json')] },
    { name: 'academy', commands: [run(0, 'academy', '1', '2', '--sandbox'), atLoopback(0, 'academy', '3', '--format', 'csv')] },
    { name: 'academies', commands: [run(0, 'academies', '--sandbox'), run(0, 'academies', '--sandbox', '--format', 'ndjson')] },
    { name: 'family', commands: [run(0, 'family', '501', '530', '--sandbox'), run(0, 'family', '550', '--sandbox', '--json')] },
    { name: 'api', commands: [run(0, 'api', '/academies/1', '--sandbox'), atLoopback(0, 'api', '/me')] },
    // The loopback server's 404s carry its fixed correlation ID: compared unmasked.
    {
      name: 'a 404 at the loopback server',
      commands: [atLoopback(3, 'academy', '999'), atLoopback(3, 'api', '/nope'), atLoopback(3, 'family', '599', '--json')],
      shows: `correlation ID ${FIXED_ID}`,
    },
    // The in-process sandbox's 404 names a random correlation ID: masked, and only that.
    {
      name: 'a 404 at the sandbox',
      commands: [run(3, 'academy', '5', '--sandbox'), run(3, 'academy', '999', '--sandbox', '--json')],
      mask: maskCorrelationId,
      shows: '<correlation id>',
    },
    {
      name: '--jq',
      commands: [
        run(0, 'academies', '--sandbox', '--jq', '.name'),
        run(0, 'academies', '--sandbox', '--slurp', '--jq', 'map(.currency)'),
        run(0, 'whoami', '--sandbox', '-q', '.user'),
        run(2, 'whoami', '--sandbox', '--jq', '.['),
        run(1, 'academies', '--sandbox', '--jq', '.[].name'),
      ],
    },
    { name: 'schema', commands: [run(0, 'schema', 'academy'), run(0, 'schema', 'whoami'), run(2, 'schema'), run(2, 'schema', 'nope')] },
    { name: 'help', commands: [run(0, '--help'), run(0, 'help', 'academy'), run(0, 'academy', '--help'), run(0, 'config', 'set', '--help')] },
    {
      name: 'completion',
      commands: [run(0, 'completion', 'bash'), run(0, 'completion', 'zsh'), run(0, 'completion', 'fish'), run(0, 'completion', 'pwsh'), run(2, 'completion', 'tcsh')],
    },
    {
      name: 'config',
      commands: [
        run(0, 'config', 'path'),
        run(0, 'config', 'list'),
        run(0, 'config', 'set', 'format', 'json'),
        run(0, 'config', 'set', 'retries', '5'),
        run(0, 'config', 'get', 'format'),
        run(0, 'config', 'list'),
        run(0, 'config', 'unset', 'format'),
        run(0, 'config', 'get', 'format'),
        run(2, 'config', 'set', 'nope', '1'),
      ],
    },
    {
      name: 'auth status',
      commands: [run(4, 'auth', 'status'), run(0, 'auth', 'status', '--sandbox'), atLoopback(0, 'auth', 'status')],
      // The in-process sandbox listens on a port the system picks, each run: masked, and only that.
      mask: (text) => text.replace(/127\.0\.0\.1:\d+ \(from --sandbox\)/g, '127.0.0.1:<port> (from --sandbox)'),
      shows: '127.0.0.1:<port> (from --sandbox)',
    },
    {
      name: 'doctor',
      // The npm build's start makes Node's compile cache folder, which the binary, starting from its snapshot, never
      // needs: doctor's row for it would differ by design, so both run with it turned off.
      commands: [{ args: ['doctor'], code: 4, env: { GYMCTL_NO_CODE_CACHE: '1' } }],
    },
    {
      name: 'doctor at the loopback server',
      commands: [{ args: ['doctor'], code: 0, env: { ...loopback, GYMCTL_NO_CODE_CACHE: '1' } }],
      // How long the request took, and the padding a table cell gives it at a terminal (one digit more or less):
      // masked, and only that.
      mask: (text) => text.replace(/GET \/me: 200 in \d+ ms, correlation ID */g, 'GET /me: 200 in <time> ms, correlation ID '),
      shows: 'GET /me: 200 in <time> ms',
    },
    {
      name: 'the keyring',
      commands: [
        { args: ['auth', 'login', '--keyring', '--with-key', '--base-url', baseUrl], stdin: DEMO_KEY, code: 0 },
        run(0, 'auth', 'status'),
        run(0, 'whoami', '--jq', '.id'),
        run(0, 'auth', 'logout'),
        run(4, 'whoami'),
      ],
      keyring: true,
      shows: 'keyring',
    },
    {
      // An assistant's session, as lines on stdin: the SDK's side file from the binary's own bytes, a call that reaches
      // the loopback server (a 404 with its fixed correlation ID), an id refused before any request, and a line that is
      // no JSON. The refusal answers before the 404 (no request to wait for), in both builds alike.
      name: 'gymctl mcp',
      commands: [{ args: ['mcp'], env: loopback, stdin: MCP_SESSION, code: 0 }],
      // The failure is JSON in the result's text: its quotes are escaped in the line.
      shows: String.raw`\"correlationId\":\"${FIXED_ID}\",\"status\":404`,
    },
    {
      // A proxy's path loads undici: the npm build the copy npm installed beside it, the binary the one its side file
      // carries (build-sea.mjs). Exit 0 means the proxy was used: gym.test resolves nowhere else.
      name: 'through a proxy',
      commands: [{ args: ['whoami', '--allow-http'], env: { GYMCTL_API_KEY: DEMO_KEY, GYMCTL_BASE_URL: 'http://gym.test', HTTP_PROXY: proxyUrl }, code: 0 }],
      shows: 'rita.moreira@example.com',
    },
    // `version --licenses` is not here: the binary bundles undici, which the npm build takes from node_modules, so its
    // notices count one package more (matrix.test.ts compares the two).
    { name: 'version', commands: [run(0, '--version'), run(0, '-V'), run(0, 'version'), run(2, 'version', '--json')] },
    { name: 'an unknown command', commands: [run(2, 'nope'), run(2, 'academy', '--nope'), run(2, 'whoami', 'extra')] },
    {
      name: 'a 300-id stdin batch',
      commands: [
        { args: ['academy', '-', '--sandbox', '--format', 'ndjson'], stdin: BATCH, code: 0 },
        { args: ['academy', '-', '--sandbox', '--jq', '.name'], stdin: BATCH, code: 0 },
      ],
      // At a terminal the progress line (src/output/progress.ts) is drawn at most every 100 ms, so how often it
      // shows depends on time: its draws and erases are taken out; the rows around them are compared.
      mask: (text) => text.replace(/\r(?:Fetching academies \d+\/300|\u001b\[K)/g, ''),
      shows: 'Shibuya Judo Dojo',
    },
  ];
}
