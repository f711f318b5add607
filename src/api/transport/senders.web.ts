// senders.ts for the web build: the caller's fetch, else the runtime's, what the runtime lacks a usage error before
// anything is sent. Its sending through a fetch, and stopping any promise-based send, serve senders.ts too.
import { usageError } from '../errors.js';
import type { AttemptControl, Connection, Exchange, Send } from './exchange.js';
import type { DispatcherLike, FetchLike, ClientOptions } from './types.js';

/** What the web build uses of the platform besides fetch. */
const NEEDED = ['AbortController', 'AbortSignal', 'Headers', 'Response', 'ReadableStream', 'TextDecoder', 'TextEncoder'];

/** Options only Node's senders can honour: undici's dispatcher, and the environment its proxies are read from. */
const NODE_ONLY = ['dispatcher', 'env'] as const;

export async function openConnection(options: ClientOptions, _timeout?: number): Promise<Connection> {
  const nodeOnly = NODE_ONLY.filter((name) => options[name] !== undefined);
  if (nodeOnly.length > 0)
    throw usageError(`${nodeOnly.join(' and ')}: proxies and undici are for Node (and Bun and Deno), not this runtime's build of gymctl; its fetch decides the way`);
  const fetch = options.fetch ?? globalThis.fetch;
  const platform = globalThis as unknown as Record<string, unknown>;
  const missing = [...(typeof fetch === 'function' ? [] : ['fetch']), ...NEEDED.filter((name) => typeof platform[name] !== 'function')];
  if (missing.length > 0) {
    const fix = typeof fetch === 'function' ? '' : ': pass one as createClient({ fetch })';
    throw usageError(`this runtime has no ${missing.join(', ')}, which gymctl needs${fix}`);
  }
  return { send: viaFetch(fetch, new URL(options.baseUrl).origin), close: async () => {} };
}

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
