/**
 * A `done/total` line on stderr while a long batch runs, as gh shows its
 * spinners: only when both stdout and stderr are terminals (never in a
 * pipe, never because GYMCTL_FORCE_TTY asks stdout to look like one), only
 * for more than a screenful, and never with GYMCTL_NO_PROGRESS set. Rows
 * and messages are written above it; it is erased on every way out:
 * success, failure, an interrupt (the command's dispose) and a closed
 * stdout (the process's exit).
 */
import type { IO } from '../terminal/io.js';

export interface Progress {
  /** One more item is done. */
  tick(): void;
  /** Writes something (a row, a message) above the progress line. */
  above(write: () => void): void;
  /** Erases the line. */
  done(): void;
}

const SILENT: Progress = { tick() {}, above: (write) => write(), done() {} };
const REDRAW_MS = 100;

export function createProgress(io: IO, env: NodeJS.ProcessEnv, total: number, label: string): Progress {
  const screenful = (io.stdout as { rows?: number }).rows || 24; // 0 when the terminal does not say
  const terminals = Boolean(io.stdout.isTTY) && Boolean(io.stderr.isTTY);
  if (!terminals || total <= screenful || env.GYMCTL_NO_PROGRESS) return SILENT;
  if (io.accessible) return appendedProgress(io, total, label);
  let completed = 0;
  let drawnAt = 0;
  let shown = false;
  const draw = () => {
    io.err(`\r${label} ${completed}/${total}`);
    shown = true;
    drawnAt = Date.now();
  };
  const erase = () => {
    if (shown) io.err('\r\u001b[K');
    shown = false;
  };
  // A reader that closes stdout ends gymctl at once: the line goes with it.
  process.once('exit', erase);
  return {
    tick() {
      completed++;
      if (Date.now() - drawnAt >= REDRAW_MS) draw();
    },
    above(write) {
      const was = shown;
      erase();
      write();
      if (was) draw();
    },
    done() {
      erase();
      process.off('exit', erase);
    },
  };
}

/** How often the accessible progress speaks: every tenth of the batch, or every 10 s, whichever comes first. */
const SPOKEN_MS = 10_000;

/**
 * Accessible progress: whole lines appended ("Fetched 120 of 500
 * academies"), never a line redrawn, which a screen reader would not
 * announce; at most every 10% or 10 s.
 */
function appendedProgress(io: IO, total: number, label: string): Progress {
  const noun = label.replace(/^Fetching /, '');
  const step = Math.max(1, Math.ceil(total / 10));
  let completed = 0;
  let spoken = 0;
  let spokenAt = Date.now();
  const speak = () => {
    io.err(`Fetched ${completed} of ${total} ${noun}\n`);
    spoken = completed;
    spokenAt = Date.now();
  };
  return {
    tick() {
      completed++;
      if (completed - spoken >= step || (completed > spoken && Date.now() - spokenAt >= SPOKEN_MS)) speak();
    },
    above: (write) => write(),
    done() {},
  };
}
