/** Where JSON text goes wrong, never quoted: V8's messages hold a snippet, which in a config file can be the API key. */
import { MAX_JSON_DEPTH, nestsDeeperThan } from './exact.js';

function failsBefore(text: string, length: number): boolean {
  try {
    JSON.parse(text.slice(0, length));
    return false;
  } catch (error) {
    const message = String((error as Error).message);
    if (/end of JSON input/.test(message)) return false;
    const position = /at position (\d+)/.exec(message)?.[1];
    return position === undefined || Number(position) < length;
  }
}

/** The first offset at which `text` cannot be JSON, found by bisecting its prefixes. */
function errorOffset(text: string): number {
  let low = 0;
  let high = text.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (failsBefore(text, middle + 1)) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** "line L, column C" of the first error in `text`, that it ends too early, or that it nests too deep to be read. */
export function describeJsonError(text: string): string {
  if (nestsDeeperThan(text)) return `it nests deeper than ${MAX_JSON_DEPTH} levels`;
  const offset = errorOffset(text);
  if (offset >= text.length) return 'it ends too early';
  const before = text.slice(0, offset).split('\n');
  return `error at line ${before.length}, column ${before.at(-1)!.length + 1}`;
}
