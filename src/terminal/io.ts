/** The standard streams and every decision on them (terminal, colour, width): commands write through it alone. */
export interface IOStreams {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

export interface IO extends IOStreams {
  /** stdout is a terminal (or GYMCTL_FORCE_TTY says to act as if). */
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  readonly stdinIsTTY: boolean;
  /** Colour on stdout. */
  readonly color: boolean;
  /** Output for screen readers (GYMCTL_ACCESSIBLE, ACCESSIBLE or `config set accessible true`): nothing drawn or redrawn. */
  accessible: boolean;
  out(text: string): void;
  err(text: string): void;
}

/** Colour only on a terminal, never with --no-color or NO_COLOR, and on demand with FORCE_COLOR (but 0 or false). */
export function decideColor(isTTY: boolean, env: NodeJS.ProcessEnv, colorFlag = true): boolean {
  if (!colorFlag) return false;
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '') return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  return isTTY && env.TERM !== 'dumb';
}

/** stdin and stderr are reached only when used: Node builds each stream on first access. `colorFlag` is false with --no-color. */
export function createIO(streams: IOStreams, options: { env: NodeJS.ProcessEnv; colorFlag?: boolean }): IO {
  const forced = Boolean(options.env.GYMCTL_FORCE_TTY);
  const stdoutIsTTY = forced || Boolean(streams.stdout.isTTY);
  return {
    get stdin() {
      return streams.stdin;
    },
    stdout: streams.stdout,
    get stderr() {
      return streams.stderr;
    },
    stdoutIsTTY,
    get stderrIsTTY() {
      return forced || Boolean(streams.stderr.isTTY);
    },
    get stdinIsTTY() {
      return Boolean(streams.stdin.isTTY);
    },
    color: decideColor(stdoutIsTTY, options.env, options.colorFlag),
    // GYMCTL_ACCESSIBLE or the cross-tool ACCESSIBLE, set to anything but the words that say no (those of GYMCTL_DEBUG).
    accessible: [options.env.GYMCTL_ACCESSIBLE, options.env.ACCESSIBLE].some((value = '') => !['', '0', 'false', 'no', 'off'].includes(value.trim().toLowerCase())),
    out: (text) => void streams.stdout.write(text),
    err: (text) => void streams.stderr.write(text),
  };
}
