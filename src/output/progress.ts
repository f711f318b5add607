/**
 * A `done/total` line on stderr while a long batch runs, erased when it
 * ends. Only on a terminal, only for more than a screenful, and not while
 * results stream to the same terminal (they show progress themselves).
 */
import type { OutputFormat } from '../config/formats.js';
import type { IO } from '../terminal/io.js';

export interface Progress {
  /** One more item is done. */
  tick(): void;
  /** Writes a message on stderr above the progress line. */
  above(write: () => void): void;
  /** Erases the line. */
  done(): void;
}

const SILENT: Progress = { tick() {}, above: (write) => write(), done() {} };
const REDRAW_MS = 100;

export function createProgress(io: IO, total: number, format: OutputFormat, label: string): Progress {
  const screenful = (io.stdout as { rows?: number }).rows || 24; // 0 when the terminal does not say
  const streamsToTerminal = io.stdoutIsTTY && format !== 'table';
  if (!io.stderrIsTTY || total <= screenful || streamsToTerminal) return SILENT;
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
  return {
    tick() {
      completed++;
      if (Date.now() - drawnAt >= REDRAW_MS) draw();
    },
    above(write) {
      erase();
      write();
      draw();
    },
    done: erase,
  };
}
