/**
 * `gymctl api <path>`: an authenticated GET of any path under the base URL.
 * In a pipe, the body exactly as received; on a terminal, JSON laid out
 * with a 2-space indent (numbers and strings as sent), made safe like all
 * output, with a final newline. With `--include` (`-i`), as `gh api -i`:
 * the status line and the headers first, then an empty line.
 */
import { operations } from '../../api/client.js';
import { GymctlError, type ResponseHead } from '../../api/errors.js';
import type { ApiResponse } from '../../api/transport/types.js';
import type { Factory } from '../../factory.js';
import { formatJson } from '../../json/raw.js';
import { nestsDeeperThan } from '../../json/exact.js';
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

/**
 * The status line (`HTTP/1.1 200 OK`), then each header as `Name: value` in
 * the order received; one character a byte. Printed with LF line ends and
 * an empty line after them: gh ends its header lines with CRLF, but gymctl's
 * output is LF throughout, and `sed '1,/^$/d'` then leaves the body.
 */
function headLines(head: ResponseHead): string[] {
  const lines = [`${head.version} ${head.status}${head.statusText ? ` ${head.statusText}` : ''}`];
  for (const [name, value] of head.headers) lines.push(`${name}: ${value}`);
  return lines;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The head for people: bytes read as UTF-8 where they are that, else one a character, then made safe (`^[[31m`, `<U+202E>`). */
function headForTerminal(head: ResponseHead): string {
  const readable = (line: string) => {
    try {
      return utf8.decode(Buffer.from(line, 'latin1'));
    } catch {
      return line;
    }
  };
  return `${headLines(head)
    .map((line) => sanitizeLine(readable(line)))
    .join('\n')}\n\n`;
}

export type ApiOptions = Pick<Factory, 'io' | 'output' | 'client'>;

export async function runApi(f: ApiOptions, path: string, options: { include?: boolean } = {}): Promise<void> {
  const operation = operations.raw(path); // checked before anything is read or sent
  const { jq } = await f.output();
  const { client } = await f.client();
  let response: ApiResponse<undefined>;
  try {
    response = await client.request(operation);
  } catch (error) {
    // A failure prints nothing on stdout: the head it came with goes to stderr, made safe as all of stderr, before the error.
    if (options.include && error instanceof GymctlError && error.head) f.io.err(headForTerminal(error.head));
    throw error;
  }
  if (options.include && response.head) {
    // On a terminal, made safe; in a pipe, the bytes as received.
    if (f.io.stdoutIsTTY) f.io.out(headForTerminal(response.head));
    else f.io.stdout.write(Buffer.from(`${headLines(response.head).join('\n')}\n\n`, 'latin1'));
  }
  if (jq) return jq.print((text) => f.io.out(text), response.rawData, f.io.stdoutIsTTY);
  if (f.io.stdoutIsTTY) return f.io.out(forTerminal(response.rawData));
  // In a pipe, the bytes as received, invalid UTF-8 and all (an answer from the cache is kept as text).
  if (response.rawBytes) f.io.stdout.write(response.rawBytes);
  else f.io.out(response.rawData);
}
