/**
 * A real terminal for tests: a detached tmux session (tmux from Debian) in
 * which lines are typed, Tab as \t and Ctrl-C as \u0003, and whose screen
 * is read back.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface TmuxOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The terminal's size. */
  width?: number;
  height?: number;
  /** How long to wait after each line that runs a command (ms). */
  settle?: number;
  /** What the screen shows once the last line's command has answered: waited for, at most 10 s, before the screen is read. */
  until?: RegExp;
}

/**
 * Waits until the screen has changed and then stayed the same for `quiet`
 * ms (a completion or a command has finished drawing), at most 10 s: no
 * fixed sleep that a loaded machine could outrun. A screen that does not
 * change within 800 ms counts as settled, unless `from` is given: then it
 * must first differ from `from` (a Tab whose completion runs gymctl, which
 * on a busy machine takes longer than that to start).
 */
async function settled(screen: () => string, quiet: number, from?: string): Promise<void> {
  const start = from ?? screen();
  const deadline = Date.now() + 10_000;
  let last = start;
  let since = Date.now();
  let changed = false;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = screen();
    if (now !== last) {
      last = now;
      since = Date.now();
      changed = true;
    } else if ((changed || (from === undefined && Date.now() - since > 800)) && Date.now() - since >= quiet) {
      return;
    }
  }
}

/** Types each line into `shell` in a detached tmux session, and returns the screen. */
export async function typeInTmux(shell: string, lines: string[], options: TmuxOptions): Promise<string> {
  const session = `gymctl-${process.pid}-${Math.random().toString(36).slice(2)}`;
  // A tmux server of its own: a shared one would give the session the environment of whoever started it. Its
  // socket is in a folder of the test's, removed after, not in /tmp/tmux-UID, where tmux would leave it behind.
  const folder = mkdtempSync(path.join(os.tmpdir(), 'gymctl-tmux-'));
  const socket = path.join(folder, 'socket');
  const tmux = (...args: string[]) => spawnSync('tmux', ['-S', socket, ...args], { env: options.env, encoding: 'utf8', cwd: options.cwd });
  tmux('new-session', '-d', '-s', session, '-x', String(options.width ?? 200), '-y', String(options.height ?? 50), '-c', options.cwd, `env PS1='$ ' PROMPT='$ ' ${shell}`);
  try {
    await new Promise((resolve) => setTimeout(resolve, 400));
    const screen = () => tmux('capture-pane', '-p', '-t', session).stdout;
    for (const line of lines) {
      const tab = line.endsWith('\t');
      const text = line.replace(/\t+$/, '');
      if (text === '\u0003') tmux('send-keys', '-t', session, 'C-c');
      else if (text) tmux('send-keys', '-t', session, '-l', text);
      if (tab) {
        // The typed text on screen first, then the Tab's answer, however long gymctl takes to give it.
        if (text) await settled(screen, 150);
        const before = screen();
        for (let i = 0; i < line.length - text.length; i++) tmux('send-keys', '-t', session, 'Tab');
        await settled(screen, 400, before);
        continue;
      }
      if (text !== '\u0003') tmux('send-keys', '-t', session, 'Enter');
      await settled(screen, options.settle ?? 300);
    }
    const deadline = Date.now() + 10_000;
    while (options.until && !options.until.test(screen()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    return screen();
  } finally {
    tmux('kill-server');
    rmSync(folder, { recursive: true, force: true });
  }
}
