/** The key, wherever a server echoes it, as [redacted]: as sent in any case, percent-encoded (even in part), in base64 or base64url (even inside `user:key`). */
import type { GymApiError, ResponseHead } from '../errors.js';

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

const utf8 = (text: string) => [...new TextEncoder().encode(text)];

const percentEncoded = (char: string) => Array.from(utf8(char), (byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** `bytes` in base64, unpadded (not Buffer nor btoa: the web build has neither everywhere it runs). */
function base64(bytes: number[]): string {
  let text = '';
  for (let at = 0; at < bytes.length; at += 3) {
    const bits = (bytes[at]! << 16) | ((bytes[at + 1] ?? 0) << 8) | (bytes[at + 2] ?? 0);
    for (const shift of [18, 12, 6, 0]) text += BASE64[(bits >> shift) & 63];
  }
  return text;
}

/** The base64 characters the key's bytes alone decide, at each of its 3 alignments in a base64 text: those at its ends hold bits of its neighbours too. */
const base64Cores = (bytes: number[]) =>
  [0, 1, 2].map((offset) => base64([...Array<number>(offset).fill(0), ...bytes]).slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6)));

/** One pattern for every form, made once for the key in use (a process has one, or a few in turn). */
let made: { key: string; pattern: RegExp } | undefined;
function patternOf(key: string): RegExp {
  if (made?.key !== key) {
    // Each character as itself (any case) or as its UTF-8 bytes percent-encoded (either case of hex digit).
    const plain = [...key].map((char) => `(?:${escaped(char)}|${percentEncoded(char)})`).join('');
    const cores = base64Cores(utf8(key)).flatMap((core) => [core, core.replaceAll('+', '-').replaceAll('/', '_')]);
    made = { key, pattern: new RegExp([plain, ...[...new Set(cores)].map(escaped)].join('|'), 'gi') };
  }
  made.pattern.lastIndex = 0;
  return made.pattern;
}

// A key under 8 characters is left alone: it would match too much.
const echoes = (key: string, text: string) => key.length >= 8 && patternOf(key).test(text);

export function redactText(key: string, text: string): string {
  return echoes(key, text) ? text.replace(patternOf(key), '[redacted]') : text;
}

export function redactError(key: string, error: GymApiError): GymApiError {
  const message = redactText(key, error.message);
  // The server's own words, which the JSON error line prints as its message.
  const serverMessage = error.serverMessage === undefined ? undefined : redactText(key, error.serverMessage);
  const correlationId = error.correlationId === undefined ? undefined : redactText(key, error.correlationId);
  const head = error.head && redactHead(key, error.head);
  if (message === error.message && serverMessage === error.serverMessage && correlationId === error.correlationId && head === error.head) return error;
  return error.with({ message, serverMessage, correlationId, head, cause: undefined });
}

/** The head itself when nothing in it echoes the key, as most do: `api -i` prints no key. */
export function redactHead(key: string, head: ResponseHead): ResponseHead {
  if (!echoes(key, head.statusText) && !head.headers.some(([name, value]) => echoes(key, name) || echoes(key, value))) return head;
  return {
    ...head,
    statusText: redactText(key, head.statusText),
    headers: head.headers.map(([name, value]) => [redactText(key, name), redactText(key, value)] as const),
  };
}

const SECRET_HEADERS = new Set(['x-api-key', 'authorization', 'proxy-authorization', 'cookie']);

export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, SECRET_HEADERS.has(name.toLowerCase()) ? '[redacted]' : value]));
}
