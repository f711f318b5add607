/** Sending through a fetch (the caller's, or the web build's global one), and stopping any promise-based send. */
import type { AttemptControl, Exchange, Send } from './exchange.js';
import type { DispatcherLike, FetchLike } from './types.js';

export function stoppable(control: AttemptControl, start: (signal: AbortSignal) => Promise<Exchange>, onStop?: (reason: Error) => void): Promise<Exchange> {
  return new Promise<Exchange>((resolve, reject) => {
    const controller = new AbortController();
    control.onStop((reason) => {
      controller.abort(reason);
      onStop?.(reason);
      reject(reason);
    });
    if (!controller.signal.aborted) start(controller.signal).then(resolve, reject);
  });
}

export function viaFetch(fetch: FetchLike, origin: string, dispatcher?: DispatcherLike): Send {
  return (path, headers, control) =>
    stoppable(control, (signal) =>
      fetch(origin + path, { method: 'GET', headers, redirect: 'manual', signal, ...(dispatcher ? { dispatcher } : {}) }).then((response) => ({
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
        // Lower-case names, sorted, repeated ones joined (but Set-Cookie): all fetch's Headers keeps.
        rawHeaders: [...response.headers].flat(),
        body: response.body as AsyncIterable<Uint8Array> | null,
        decoded: true,
        cancel: () => void response.body?.cancel().catch(() => {}),
      })),
    );
}
