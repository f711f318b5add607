import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { GymctlError } from '../../src/api/errors.js';
import { Interrupted } from '../../src/failures.js';
import { createIO } from '../../src/terminal/io.js';
import { promptHidden, readStdin } from '../../src/terminal/prompt.js';

function fakeTerminal() {
  const stdin = Object.assign(new PassThrough(), { isTTY: true, rawModes: [] as boolean[] });
  const setRawMode = (mode: boolean) => stdin.rawModes.push(mode);
  const stderr = new PassThrough();
  let written = '';
  stderr.on('data', (chunk: Buffer) => (written += chunk.toString()));
  const io = createIO({ stdin: Object.assign(stdin, { setRawMode }), stdout: new PassThrough(), stderr }, { env: {} });
  return { io, stdin, written: () => written };
}

describe('promptHidden', () => {
  it('reads a line in raw mode and echoes none of it', async () => {
    const t = fakeTerminal();
    const answer = promptHidden(t.io, 'Key: ');
    t.stdin.write('sk_live_');
    t.stdin.write('abc\r');
    await expect(answer).resolves.toBe('sk_live_abc');
    expect(t.stdin.rawModes).toEqual([true, false]);
    expect(t.written()).toBe('Key: \n');
  });

  it('handles backspace, ignores control characters, and stops at the first newline', async () => {
    const t = fakeTerminal();
    const answer = promptHidden(t.io, '');
    t.stdin.write('abx\u007fc\u0007d\nignored');
    await expect(answer).resolves.toBe('abcd');
  });

  it('skips escape sequences whole: abc, ←, Delete, ↑, Enter stores abc', async () => {
    const t = fakeTerminal();
    const answer = promptHidden(t.io, '');
    t.stdin.write('abc\u001b[D\u001b[3~\u001b[A\u001bOH\r');
    await expect(answer).resolves.toBe('abc');
  });

  it('keeps what is pasted between bracketed-paste markers; Ctrl-U clears the line', async () => {
    const t = fakeTerminal();
    const answer = promptHidden(t.io, '');
    t.stdin.write('typo\u0015\u001b[200~sk_live_pasted\u001b[201~\r');
    await expect(answer).resolves.toBe('sk_live_pasted');
  });

  it('an interrupt from outside (SIGTERM) restores the terminal and ends the line', async () => {
    const t = fakeTerminal();
    const controller = new AbortController();
    const answer = promptHidden(t.io, 'Key: ', controller.signal);
    t.stdin.write('sk_');
    controller.abort(new Interrupted('SIGTERM'));
    await expect(answer).rejects.toBeInstanceOf(Interrupted);
    expect(t.stdin.rawModes).toEqual([true, false]);
    expect(t.written()).toBe('Key: \n');
  });

  it('Ctrl-Break (SIGBREAK, a signal in a Windows console even in raw mode) restores the terminal as Ctrl-C does', async () => {
    const t = fakeTerminal();
    const controller = new AbortController();
    const answer = promptHidden(t.io, 'Key: ', controller.signal);
    t.stdin.write('sk_');
    controller.abort(new Interrupted('SIGBREAK'));
    const error = await answer.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Interrupted);
    expect((error as Interrupted).signal).toBe('SIGBREAK');
    expect(t.stdin.rawModes).toEqual([true, false]);
    expect(t.written()).toBe('Key: \n');
  });

  it('Ctrl-C interrupts and leaves raw mode', async () => {
    const t = fakeTerminal();
    const answer = promptHidden(t.io, '');
    t.stdin.write('ab\u0003');
    await expect(answer).rejects.toBeInstanceOf(Interrupted);
    expect(t.stdin.rawModes.at(-1)).toBe(false);
  });

  it('Ctrl-D on an empty line gives up with a usage error', async () => {
    const t = fakeTerminal();
    const answer = promptHidden(t.io, '');
    t.stdin.write('\u0004');
    const error = await answer.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GymctlError);
    expect((error as GymctlError).kind).toBe('usage');
  });
});

describe('readStdin', () => {
  it('reads everything piped in', async () => {
    const t = fakeTerminal();
    const text = readStdin(t.io);
    t.stdin.end('key-from-pipe\n');
    await expect(text).resolves.toBe('key-from-pipe\n');
  });

  it('refuses more than a key could be', async () => {
    const t = fakeTerminal();
    const text = readStdin(t.io);
    t.stdin.end('x'.repeat(70 * 1024));
    await expect(text).rejects.toBeInstanceOf(GymctlError);
  });
});
