/** senders.ts for the web build: the caller's fetch, else the runtime's. What the runtime lacks is a usage error before anything is sent. */
import { usageError } from '../errors.js';
import { viaFetch } from './via-fetch.js';
import type { Connection } from './exchange.js';
import type { TransportOptions } from './types.js';

/** What the web build uses of the platform besides fetch. */
const NEEDED = ['AbortController', 'AbortSignal', 'Headers', 'Response', 'ReadableStream', 'TextDecoder', 'TextEncoder'];

/** Options only Node's senders can honour: undici's dispatcher, and the environment its proxies are read from. */
const NODE_ONLY = ['dispatcher', 'env'] as const;

export async function openConnection(options: TransportOptions, _timeout?: number): Promise<Connection> {
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
