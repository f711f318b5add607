/**
 * `gymctl api <path>`: an authenticated GET of any path under the base URL.
 * In a pipe, the body exactly as received; on a terminal, JSON laid out
 * with a 2-space indent (numbers and strings as sent), made safe like all
 * output, with a final newline.
 */
import { operations } from '../../api/client.js';
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

export type ApiOptions = Pick<Factory, 'io' | 'output' | 'client'>;

export async function runApi(f: ApiOptions, path: string): Promise<void> {
  const operation = operations.raw(path); // checked before anything is read or sent
  const { jq } = await f.output();
  const { client } = await f.client();
  const response = await client.request(operation);
  if (jq) return jq.print((text) => f.io.out(text), response.rawData, f.io.stdoutIsTTY);
  if (f.io.stdoutIsTTY) return f.io.out(forTerminal(response.rawData));
  // In a pipe, the bytes as received, invalid UTF-8 and all (an answer from the cache is kept as text).
  if (response.rawBytes) f.io.stdout.write(response.rawBytes);
  else f.io.out(response.rawData);
}
