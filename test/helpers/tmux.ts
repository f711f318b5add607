/**
 * A real terminal for tests: a detached tmux session (tmux from Debian) in
 * which text is typed and keys pressed, step by step, and whose screen is
 * read back. Each step waits for what its keys bring to the screen (the
 * prompt back, a completion, a picker's list): never for a fixed time,
 * which a loaded machine could outrun.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The shell's prompt (PS1 and PROMPT are set to it), alone on the cursor's line: the last command has ended. */
export const PROMPT = 'prompt';

/** One step: `type` typed as is, then `press`'s keys (tmux key names: Enter, Tab, C-c), then `until` waited for. */
export interface Step {
  type?: string;
  press?: readonly string[];
  /** What the screen shows once the keys have been answered: a pattern, a test of the whole screen, or PROMPT. */
  until: RegExp | ((screen: string) => boolean) | typeof PROMPT;
}

/** A command line: the text, Enter, and by default the prompt back. */
export const line = (text: string, until: Step['until'] = PROMPT): Step => ({ type: text, press: ['Enter'], until });
/** Text and then Tab, until the completion shows. */
export const tab = (text: string, until: Step['until']): Step => ({ type: text, press: ['Tab'], until });
/** Ctrl-C, and the prompt on a line of its own. */
export const ctrlC = (): Step => ({ press: ['C-c'], until: PROMPT });
/** Text with no key after it (a filter typed into a picker), until it shows its effect. */
export const keys = (text: string, until: Step['until']): Step => ({ type: text, until });

export interface TmuxOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The terminal's size. */
  width?: number;
  height?: number;
  /**
   * How long any one step may take to show what it waits for, at most (ms): generous, for a loaded machine, and
   * short of the test's own timeout, so that a step that never shows fails with the screen.
   */
  within?: number;
}

/** Types each step into `shell` in a detached tmux session, and returns the screen once the last step is answered. */
export async function typeInTmux(shell: string, steps: readonly Step[], options: TmuxOptions): Promise<string> {
  const session = `gymctl-${process.pid}-${Math.random().toString(36).slice(2)}`;
  // A tmux server of its own: a shared one would give the session the environment of whoever started it. Its
  // socket is in a folder of the test's, removed after, not in /tmp/tmux-UID, where tmux would leave it behind.
  const folder = mkdtempSync(path.join(os.tmpdir(), 'gymctl-tmux-'));
  const socket = path.join(folder, 'socket');
  const tmux = (...args: string[]) => spawnSync('tmux', ['-S', socket, ...args], { env: options.env, encoding: 'utf8', cwd: options.cwd });
  const within = options.within ?? 60_000;
  tmux('new-session', '-d', '-s', session, '-x', String(options.width ?? 200), '-y', String(options.height ?? 50), '-c', options.cwd, `env PS1='$ ' PROMPT='$ ' ${shell}`);
  const screen = () => tmux('capture-pane', '-p', '-t', session).stdout;
  /** The line the cursor is on, without the spaces after it. */
  const cursorLine = () => {
    const y = Number(tmux('display-message', '-p', '-t', session, '#{cursor_y}').stdout.trim());
    return (screen().split('\n')[y] ?? '').trimEnd();
  };
  /** Polls until `done` holds, at most `within` ms; past that, fails with the screen as it is. */
  const waitFor = async (what: string, done: () => boolean) => {
    const deadline = Date.now() + within;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`${shell} under tmux: ${what} did not show within ${within} ms; the screen:\n${screen()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const prompted = () => cursorLine() === '$';
  try {
    await waitFor('the first prompt', prompted);
    for (const step of steps) {
      if (step.type) {
        tmux('send-keys', '-t', session, '-l', step.type);
        // Keys only once the text is on screen: a shell may treat keys typed ahead of its reading differently.
        const typed = step.type.trimEnd();
        await waitFor(`the typed text ${JSON.stringify(typed)}`, () => cursorLine().endsWith(typed));
      }
      for (const key of step.press ?? []) tmux('send-keys', '-t', session, key);
      const { until } = step;
      if (until === PROMPT) await waitFor('the prompt after the command', prompted);
      else if (until instanceof RegExp) await waitFor(String(until), () => until.test(screen()));
      else await waitFor(`what ${until} looks for`, () => until(screen()));
    }
    return screen();
  } finally {
    tmux('kill-server');
    rmSync(folder, { recursive: true, force: true });
  }
}
