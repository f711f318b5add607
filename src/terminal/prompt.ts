/** Reading a secret: from a hidden prompt on a terminal, or from piped stdin. */
import { Interrupted, usageError } from '../api/errors.js';
import type { IO } from './io.js';

/** Enough for any API key. */
export const MAX_KEY_BYTES = 64 * 1024;

/**
 * Asks on stderr and reads a line from the terminal in raw mode, echoing
 * nothing. Backspace and Delete remove the last character, Ctrl-U clears
 * the line, Enter ends it, Ctrl-C interrupts, Ctrl-D on an empty line
 * gives up. Escape sequences (arrow keys, Delete, Home, bracketed-paste
 * markers) and other control characters are skipped whole, never stored.
 * The terminal is restored on every way out, an interrupt included.
 */
export function promptHidden(io: IO, question: string, signal?: AbortSignal): Promise<string> {
  const { stdin } = io;
  return new Promise((resolve, reject) => {
    let value = '';
    /** Where we are in an escape sequence: none, after ESC, in a CSI (ESC [), after ESC O. */
    let escape: 'none' | 'esc' | 'csi' | 'ss3' = 'none';
    const done = (error?: unknown) => {
      stdin.off('data', onData);
      signal?.removeEventListener('abort', onAbort);
      stdin.setRawMode?.(false);
      stdin.pause();
      io.err('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onAbort = () => done(signal?.reason ?? new Interrupted());
    const onData = (chunk: Buffer | string) => {
      for (const char of String(chunk)) {
        const code = char.codePointAt(0)!;
        if (escape === 'esc') {
          escape = char === '[' ? 'csi' : char === 'O' ? 'ss3' : 'none';
          continue;
        }
        if (escape === 'csi') {
          // Parameters and intermediates (0x20–0x3f) go on; a final byte (0x40–0x7e) ends the sequence.
          if (code >= 0x40 && code <= 0x7e) escape = 'none';
          continue;
        }
        if (escape === 'ss3') {
          escape = 'none';
          continue;
        }
        if (char === '\r' || char === '\n') return done();
        if (char === '\u0003') return done(new Interrupted());
        if (char === '\u0004') return value === '' ? done(usageError('no key entered')) : done();
        if (char === '\u001b') escape = 'esc';
        else if (char === '\u007f' || char === '\b') value = Array.from(value).slice(0, -1).join('');
        else if (char === '\u0015') value = '';
        else if (code >= 0x20 && !(code >= 0x7f && code <= 0x9f)) value += char;
      }
    };
    // Echo goes off before the question appears, so nothing typed at once is shown.
    stdin.setRawMode?.(true);
    stdin.on('data', onData);
    stdin.resume();
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    io.err(question);
  });
}

/** All of stdin, up to `maxBytes` (by default, more than a key can be). */
export async function readStdin(io: IO, maxBytes = MAX_KEY_BYTES, what = 'an API key'): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of io.stdin) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > maxBytes) throw usageError(`stdin holds more than ${maxBytes / 1024} KiB: that is not ${what}`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Asks a yes/no question on stderr and reads one key from the terminal:
 * y or Y is yes; anything else (Enter included) is no. Ctrl-C interrupts.
 */
export function confirm(io: IO, question: string, signal?: AbortSignal): Promise<boolean> {
  const { stdin } = io;
  return new Promise((resolve, reject) => {
    const done = (answer: boolean | Error) => {
      stdin.off('data', onData);
      signal?.removeEventListener('abort', onAbort);
      stdin.setRawMode?.(false);
      stdin.pause();
      io.err(answer === true ? 'y\n' : '\n');
      if (answer instanceof Error) reject(answer);
      else resolve(answer);
    };
    const onAbort = () => done(signal?.reason ?? new Interrupted());
    const onData = (chunk: Buffer | string) => {
      const key = String(chunk).charAt(0);
      done(key === '\u0003' ? new Interrupted() : key === 'y' || key === 'Y');
    };
    stdin.setRawMode?.(true);
    stdin.on('data', onData);
    stdin.resume();
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    io.err(question);
  });
}
