/**
 * `gymctl api <path>`: in a pipe, the body exactly as received; on a terminal, JSON indented by 2 (numbers and strings as
 * sent), made safe. `-i`, as `gh api -i`: the head first (output/head.ts); on a failure, on stderr with the error.
 */
import { operations } from '../../api/client.js';
import { GymctlError, usageError } from '../../api/errors.js';
import { HEADER_NAME, HEADER_VALUE } from '../../api/transport/loop.js';
import { isJsonText } from '../../api/transport/response.js';
import type { GlobalFlags } from '../../config/settings.js';
import type { Factory } from '../../factory.js';
import { formatJson } from '../../json/raw.js';
import { nestsDeeperThan } from '../../json/exact.js';
import { headBytes, headForTerminal } from '../../output/head.js';
import { sanitizeLine } from '../../output/sanitize.js';

function forTerminal(body: string): string {
  let text = body;
  try {
    JSON.parse(body);
    if (!nestsDeeperThan(body)) text = formatJson(body, 2);
  } catch {
    // Not JSON: shown as it is, made safe.
  }
  const lines = text.split(/\r?\n/).map(sanitizeLine).join('\n');
  return lines.endsWith('\n') || lines === '' ? lines : `${lines}\n`;
}

export interface ApiOptions extends Pick<GlobalFlags, 'cache' | 'refresh'> {
  include?: boolean;
  /** -H, each `Name: value`. */
  header?: readonly string[];
  method?: string;
}

const CONNECTION_HEADERS = ['connection', 'proxy-connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'content-length', 'accept-encoding'];
/** Headers -H may not set, each with why: the key's (gymctl sends it), Host, and the connection's (RFC 9110, 7.6.1), which the transport sets itself. */
const REFUSED_HEADERS: Readonly<Record<string, string>> = {
  'x-api-key': 'gymctl sends the key itself, from auth login or GYMCTL_API_KEY',
  host: 'requests go to the base URL alone',
  ...Object.fromEntries(CONNECTION_HEADERS.map((name) => [name, 'gymctl sets the headers of the connection itself'])),
};

/** -H's headers by name, each checked (a value is never quoted: it may be a secret); the last of a name wins. */
function requestHeaders(given: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const header of given) {
    const colon = header.indexOf(':');
    const name = header.slice(0, Math.max(colon, 0)).trim();
    if (!HEADER_NAME.test(name)) throw usageError("-H takes a header as 'Name: value', such as -H 'Accept: application/json' (what was given is not shown)");
    const refused = REFUSED_HEADERS[name.toLowerCase()];
    if (refused) throw usageError(`-H cannot set ${name}: ${refused}`);
    const value = header.slice(colon + 1).trim();
    if (!HEADER_VALUE.test(value)) throw usageError(`-H: the value of ${name} has a line break, a control character or a character beyond Latin-1 (it is not shown)`);
    for (const other of Object.keys(headers)) if (other.toLowerCase() === name.toLowerCase()) delete headers[other];
    headers[name] = value;
  }
  return headers;
}

export async function runApi(f: Pick<Factory, 'io' | 'output' | 'client'>, path: string, options: ApiOptions = {}): Promise<void> {
  if (options.method !== undefined && options.method.toUpperCase() !== 'GET') throw usageError('the API is read-only: gymctl api sends GET alone');
  const headers = requestHeaders(options.header ?? []);
  if (options.header && (options.cache !== undefined || options.refresh))
    throw usageError('-H cannot be used with --cache or --refresh: the cache keeps answers by path, whatever headers asked for them');
  const operation = operations.raw(path); // checked before anything is read or sent
  const { jq } = await f.output();
  const { client, explain } = await f.client();
  const response = await client.request(operation, options.header ? { headers } : undefined).catch((error: unknown) => {
    // A failure prints nothing on stdout: with -i, the head it came with is reported with the error, on stderr (output/errors.ts).
    throw explain(error instanceof GymctlError && error.head && !options.include ? error.with({ head: undefined }) : error);
  });
  const { head } = response;
  // With -i, the head first: on a terminal made safe, in a pipe the bytes as received.
  let pending = options.include && head ? () => (f.io.stdoutIsTTY ? f.io.out(headForTerminal(head)) : f.io.stdout.write(headBytes(head))) : undefined;
  const writeHead = () => {
    pending?.();
    pending = undefined;
  };
  if (jq) {
    // A byte order mark before JSON is skipped, as RFC 8259 allows (and as the other commands do): jq reads the JSON.
    const body = response.rawData.replace(/^\uFEFF/, '');
    if (!isJsonText(body)) {
      // jq would fail with its own status; say what is wrong, as the other commands do (exit 6). Run without --jq to see the body.
      throw new GymctlError('invalid_response', `${operation.subject}: the response is not JSON, so --jq cannot filter it: run without --jq to see it as received`, {
        status: response.status,
        correlationId: response.correlationId,
        ...(options.include && head ? { head } : {}),
      });
    }
    // The head goes out with jq's first result, so that a filter that fails before printing anything leaves stdout empty.
    const out = (text: string) => {
      writeHead();
      f.io.out(text);
    };
    try {
      await jq.print(out, body, f.io.stdoutIsTTY, f.io.stdout);
    } catch (error) {
      throw pending && head && error instanceof GymctlError ? error.with({ head }) : error;
    }
    return writeHead();
  }
  writeHead();
  if (f.io.stdoutIsTTY) return f.io.out(forTerminal(response.rawData));
  // In a pipe, the bytes as received, invalid UTF-8 and all (an answer from the cache is kept as text).
  if (response.rawBytes) f.io.stdout.write(response.rawBytes);
  else f.io.out(response.rawData);
}
