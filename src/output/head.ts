/** A response's head for `gymctl api --include`: as received in a pipe, made safe on a terminal, or inside the JSON error line. */
import type { ResponseHead } from '../api/errors.js';
import { sanitizeLine } from './sanitize.js';

/** The status line and headers, one character a byte, printed with LF (gh uses CRLF; gymctl is LF throughout, so `sed '1,/^$/d'` works). */
function headLines(head: ResponseHead): string[] {
  const lines = [`${head.version} ${head.status}${head.statusText ? ` ${head.statusText}` : ''}`];
  for (const [name, value] of head.headers) lines.push(`${name}: ${value}`);
  return lines;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Bytes (one a character) read as UTF-8 where they are that, else left one a character. */
function readable(text: string): string {
  try {
    return utf8.decode(Buffer.from(text, 'latin1'));
  } catch {
    return text;
  }
}

export function headBytes(head: ResponseHead): Buffer {
  return Buffer.from(`${headLines(head).join('\n')}\n\n`, 'latin1');
}

/** The head for people, on a terminal or stderr: UTF-8 shown as text, made safe (`^[[31m`, `<U+202E>`), then an empty line. */
export function headForTerminal(head: ResponseHead): string {
  return `${headLines(head)
    .map((line) => sanitizeLine(readable(line)))
    .join('\n')}\n\n`;
}

/** The head in a JSON error line, UTF-8 read as text. */
export function headForJson(head: ResponseHead): { version: string; status: number; statusText: string; headers: [string, string][] } {
  return {
    version: head.version,
    status: head.status,
    statusText: readable(head.statusText),
    headers: head.headers.map(([name, value]) => [readable(name), readable(value)]),
  };
}
