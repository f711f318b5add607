/**
 * A batch's output in fewer writes: one a turn of the event loop (or at 64 KiB), so 20,000 records make hundreds of
 * write calls, still streaming; flushed before anything goes to stderr, so the two keep their order.
 */
import type { IO } from './io.js';

const FLUSH_AT = 64 * 1024;

/** `around` wraps every actual write (to keep a progress line below the output); `flush()` writes out what is held. */
export function coalesce(io: IO, around: (write: () => void) => void = (write) => write()): IO & { flush(): void } {
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
