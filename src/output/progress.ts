/**
 * A `done/total` line on stderr for a batch longer than a screenful, when stdout and stderr are both really terminals
 * (GYMCTL_FORCE_TTY does not count) and GYMCTL_NO_PROGRESS is unset; erased on every way out.
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

const SPOKEN_MS = 10_000;

/** Accessible progress: whole lines appended, as a screen reader does not announce a redrawn one; every 10% or 10 s. */
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
    ...SILENT,
    tick() {
      completed++;
      if (completed - spoken >= step || (completed > spoken && Date.now() - spokenAt >= SPOKEN_MS)) speak();
    },
  };
}
