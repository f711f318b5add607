/** Reading a secret: from a hidden prompt on a terminal, or from piped stdin. */
import { Interrupted, usageError } from '../api/errors.js';
import type { IO } from './io.js';

/** Enough for any API key. */
export const MAX_KEY_BYTES = 64 * 1024;

/**
 * Asks on stderr and reads a line from the terminal in raw mode, echoing
 * nothing. Backspace edits, Enter ends, Ctrl-C interrupts, Ctrl-D on an
 * empty line gives up.
 */
export function promptHidden(io: IO, question: string): Promise<string> {
  const { stdin } = io;
  return new Promise((resolve, reject) => {
    let value = '';
    const done = (error?: Error) => {
      stdin.off('data', onData);
      stdin.setRawMode?.(false);
      stdin.pause();
      io.err('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: Buffer | string) => {
      for (const char of String(chunk)) {
        if (char === '\r' || char === '\n') return done();
        if (char === '\u0003') return done(new Interrupted());
        if (char === '\u0004') return value === '' ? done(usageError('no key entered')) : done();
        if (char === '\u007f' || char === '\b') value = value.slice(0, -1);
        else if (char >= ' ') value += char;
      }
    };
    // Echo goes off before the question appears, so nothing typed at once is shown.
    stdin.setRawMode?.(true);
    stdin.on('data', onData);
    stdin.resume();
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
