/**
 * `gymctl api <path>`: an authenticated GET of any path under the base URL. In a pipe, the body exactly as received; on a
 * terminal, JSON indented by 2 (numbers and strings as sent), made safe. `-i`, as `gh api -i`: the status line and headers
 * first (output/head.ts); on a failure, on stderr with the error.
 */
import { operations } from '../../api/client.js';
import { GymctlError } from '../../api/errors.js';
import { isJsonText } from '../../api/transport/response.js';
import type { ApiResponse } from '../../api/transport/types.js';
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

export type ApiDeps = Pick<Factory, 'io' | 'output' | 'client'>;

export async function runApi(f: ApiDeps, path: string, options: { include?: boolean } = {}): Promise<void> {
  const operation = operations.raw(path); // checked before anything is read or sent
  const { jq } = await f.output();
  const { client, explain } = await f.client();
  let response: ApiResponse<undefined>;
  try {
    response = await client.request(operation);
  } catch (error) {
    // A failure prints nothing on stdout: with -i, the head it came with is reported with the error, on stderr (output/errors.ts).
    if (error instanceof GymctlError && error.head && !options.include) throw explain(error.with({ head: undefined }));
    throw explain(error);
  }
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
      if (pending && head && error instanceof GymctlError) throw error.with({ head });
      throw error;
    }
    return writeHead();
  }
  writeHead();
  if (f.io.stdoutIsTTY) return f.io.out(forTerminal(response.rawData));
  // In a pipe, the bytes as received, invalid UTF-8 and all (an answer from the cache is kept as text).
  if (response.rawBytes) f.io.stdout.write(response.rawBytes);
  else f.io.out(response.rawData);
}
