/**
 * Output of a batch, written in fewer, larger writes: every record of one
 * turn of the event loop goes out together (and at once past 64 KiB), so a
 * batch of 20,000 records makes hundreds of write calls, not 20,000. Lines
 * still stream (a reader such as `head` sees them as they come), and what
 * is held is flushed before anything goes to stderr, so messages and
 * records keep their order on a terminal.
 */
import type { IO } from './io.js';

const FLUSH_AT = 64 * 1024;

export interface CoalescedIO extends IO {
  /** Writes out what is held. */
  flush(): void;
}

/** `around` wraps every actual write (to keep a progress line below the output). */
export function coalesce(io: IO, around: (write: () => void) => void = (write) => write()): CoalescedIO {
  let held = '';
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (held === '') return;
    const text = held;
    held = '';
    around(() => io.out(text));
  };
  // A view of the same IO (its streams are built only when used), but for how stdout is written.
  return Object.assign(Object.create(io) as IO, {
    out(text: string) {
      held += text;
      if (held.length >= FLUSH_AT) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    err(text: string) {
      flush();
      around(() => io.err(text));
    },
    flush,
  });
}
