/** Reading a secret: from a hidden prompt on a terminal, or from piped stdin. */
import { Interrupted, usageError } from '../failures.js';
import { decodeInput } from './decode.js';
import type { IO } from './io.js';

/** Enough for any API key. */
export const MAX_KEY_BYTES = 64 * 1024;

/**
 * One answer read from stdin: in raw mode (echo off before the question, so nothing typed at once shows), or by lines
 * with `onEnd` the answer at Ctrl-D. Listening stops, and the terminal is restored, on every way out.
 */
function ask<T>(
  io: IO,
  question: string,
  signal: AbortSignal | undefined,
  raw: boolean,
  onInput: (chunk: string, finish: (outcome: T | Error) => void) => void,
  onEnd?: () => T,
): Promise<T> {
  const { stdin } = io;
  return new Promise((resolve, reject) => {
    let settled = false;
    /** A raw answer ends its line, as does a line's answer cut short (Ctrl-C, Ctrl-D). */
    const finish = (outcome: T | Error, newline = raw) => {
      if (settled) return;
      settled = true;
      stdin.off('data', onData);
      stdin.off('end', onClose);
      signal?.removeEventListener('abort', onAbort);
      if (raw) stdin.setRawMode?.(false);
      stdin.pause();
      if (newline) io.err('\n');
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const onAbort = () => finish(signal?.reason ?? new Interrupted(), true);
    const onData = (chunk: Buffer | string) => onInput(String(chunk), finish);
    const onClose = () => finish(onEnd!(), true);
    stdin.setRawMode?.(raw);
    stdin.on('data', onData);
    if (onEnd) stdin.on('end', onClose);
    stdin.resume();
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    io.err(question);
  });
}

/** A line read without echo; escape sequences (arrows, bracketed-paste markers) and controls are skipped whole, never stored. */
export function promptHidden(io: IO, question: string, signal?: AbortSignal): Promise<string> {
  let value = '';
  let sequence: 'none' | 'esc' | 'csi' | 'ss3' = 'none';
  return ask<string>(io, question, signal, true, (chunk, finish) => {
    for (const char of chunk) {
      const code = char.codePointAt(0)!;
      if (sequence === 'esc') {
        sequence = char === '[' ? 'csi' : char === 'O' ? 'ss3' : 'none';
        continue;
      }
      if (sequence === 'csi') {
        // Parameters and intermediates (0x20–0x3f) go on; a final byte (0x40–0x7e) ends the sequence.
        if (code >= 0x40 && code <= 0x7e) sequence = 'none';
        continue;
      }
      if (sequence === 'ss3') {
        sequence = 'none';
        continue;
      }
      if (char === '\r' || char === '\n') return finish(value);
      if (char === '\u0003') return finish(new Interrupted());
      if (char === '\u0004') return finish(value === '' ? usageError('no key entered') : value);
      if (char === '\u001b') sequence = 'esc';
      else if (char === '\u007f' || char === '\b') value = Array.from(value).slice(0, -1).join('');
      else if (char === '\u0015') value = '';
      else if (code >= 0x20 && !(code >= 0x7f && code <= 0x9f)) value += char;
    }
  });
}

/** One line as the terminal gives it; what follows stays for the next reader. `answer` undefined asks again; Ctrl-D gives `onEnd`. */
export function askLine<T>(io: IO, question: string, answer: (line: string) => T | undefined, options: { again: string; onEnd: T; signal?: AbortSignal | undefined }): Promise<T> {
  let line = '';
  return ask<T>(
    io,
    question,
    options.signal,
    false,
    (chunk, finish) => {
      line += chunk;
      for (let end = line.indexOf('\n'); end >= 0; end = line.indexOf('\n')) {
        const outcome = answer(line.slice(0, end).replace(/\r$/, '').trim());
        line = line.slice(end + 1);
        if (outcome === undefined) {
          io.err(`${options.again}${question}`);
          continue;
        }
        finish(outcome);
        // Given back once this reader has stopped listening: a stream may hand it straight to its listeners.
        if (line !== '') io.stdin.unshift?.(Buffer.from(line));
        return;
      }
    },
    () => options.onEnd,
  );
}

const YES_OR_NO = new Map(Object.entries({ y: true, yes: true, '': false, n: false, no: false }));

/** y or yes; n, no or Enter is no; else it asks again, so an Enter after `y` never lands in a key prompt that follows. */
export function confirm(io: IO, question: string, signal?: AbortSignal): Promise<boolean> {
  return askLine(io, question, (line) => YES_OR_NO.get(line.toLowerCase()), { again: 'Please answer y or n. ', onEnd: false, signal });
}

/** All of stdin, up to `maxBytes` (by default, more than a key can be), as text: UTF-8, or UTF-16 with its byte-order mark (decode.ts). */
export async function readStdin(io: IO, maxBytes = MAX_KEY_BYTES, what = 'an API key'): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of io.stdin) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > maxBytes) throw usageError(`stdin holds more than ${maxBytes / 1024} KiB: that is not ${what}`);
    chunks.push(buffer);
  }
  return decodeInput(Buffer.concat(chunks));
}
