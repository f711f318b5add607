/** The key, in whatever a server echoes, shown as [redacted]; a key under 8 characters is left alone (it would match too much). */
import type { GymApiError, ResponseHead } from '../errors.js';

const echoes = (key: string, text: string) => key.length >= 8 && text.includes(key);

export function redactText(key: string, text: string): string {
  return echoes(key, text) ? text.split(key).join('[redacted]') : text;
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
