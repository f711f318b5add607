/**
 * Which proxy a request goes through, from HTTPS_PROXY, HTTP_PROXY and NO_PROXY (lower case first, as curl reads them),
 * and how messages name it: the proxy and the variable it came from, never the API host, and never its password.
 */
import { usageError } from '../errors.js';
import { isLoopbackHost } from './loopback.js';

export interface ProxyChoice {
  url: URL;
  /** The variable it came from, e.g. HTTPS_PROXY. */
  variable: string;
  /** How messages show it: scheme, host and port, no credentials. */
  shown: string;
}

function variable(env: NodeJS.ProcessEnv, name: string): [string, string] | undefined {
  for (const key of [name.toLowerCase(), name]) {
    const value = env[key]?.trim();
    if (value) return [key, value];
  }
  return undefined;
}

/** True when NO_PROXY names the host (exactly, as a domain suffix, or `*`), with or without the port. */
function bypassesProxy(target: URL, noProxy: string | undefined): boolean {
  if (!noProxy) return false;
  const host = target.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  return noProxy
    .split(/[\s,]+/)
    .filter(Boolean)
    .some((entry) => {
      if (entry === '*') return true;
      const match = /^(.*?)(?::(\d+))?$/.exec(entry.toLowerCase().replace(/^\[|\](?=:|$)/g, ''))!;
      const [, name = '', entryPort] = match;
      if (entryPort && entryPort !== port) return false;
      const domain = name.replace(/^\*?\./, '');
      return host === domain || host.endsWith(`.${domain}`);
    });
}

/** The proxy for requests to `target`, or undefined: none set, NO_PROXY names it, or it is loopback. */
export function proxyFor(target: URL, env: NodeJS.ProcessEnv): ProxyChoice | undefined {
  // Loopback never goes through a proxy: the key would leave the machine.
  if (isLoopbackHost(target.hostname)) return undefined;
  const chosen = variable(env, target.protocol === 'https:' ? 'HTTPS_PROXY' : 'HTTP_PROXY');
  if (!chosen || bypassesProxy(target, variable(env, 'NO_PROXY')?.[1])) return undefined;
  const [name, value] = chosen;
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
    // The value is shown only when it cannot hold a password.
    const shown = value.includes('@') ? 'its value is not shown, as it may hold a password' : JSON.stringify(value);
    throw usageError(`${name} is not a proxy URL such as http://proxy.example.com:3128 (${shown})`, { reason: 'proxy' });
  }
  return { url, variable: name, shown: `${url.protocol}//${url.host}` };
}
