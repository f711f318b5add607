/** At most `size` requests in flight across every tool call and session, in order; a cancelled waiter leaves the queue. */
export class Gate {
  #active = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(readonly size: number) {}

  /** Runs `task` once a place is free; the place is given back when it settles. */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.#enter(signal);
    try {
      return await task();
    } finally {
      this.#leave();
    }
  }

  #enter(signal: AbortSignal | undefined): Promise<void> {
    signal?.throwIfAborted();
    if (this.#active < this.size) {
      this.#active++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const admit = () => {
        signal?.removeEventListener('abort', leaveQueue);
        this.#active++;
        resolve();
      };
      // Called only while the call waits: admit takes it off the signal before the call is let in.
      const leaveQueue = () => {
        this.#waiting.splice(this.#waiting.indexOf(admit), 1);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', leaveQueue, { once: true });
      this.#waiting.push(admit);
    });
  }

  #leave(): void {
    this.#active--;
    this.#waiting.shift()?.();
  }
}
