/**
 * Waits until `condition` holds (text on a stream, a line in a log, a
 * reader on stdin), polling, at most `within` ms: a ceiling generous enough
 * for a loaded machine, never a fixed time to wait. Past it, fails naming
 * `what`.
 */
export async function waitFor(what: string, condition: () => boolean, within = 60_000): Promise<void> {
  const deadline = Date.now() + within;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: not so within ${within} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
