/** The one rule for where the key may be sent, shared by the client (its options) and the CLI (flags, environment, stored profiles). */
import { isLoopbackHost } from './transport/loopback.js';

/**
 * What is wrong with a base URL the key is sent to, if anything: a scheme
 * other than https: or http:, or plain http off this machine when that is
 * not allowed. Each caller says it in its own words (a flag, an option).
 */
export function baseUrlProblem(url: URL, allowHttp: boolean): { scheme: string } | { insecureHost: string } | undefined {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { scheme: url.protocol };
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !allowHttp) return { insecureHost: url.host };
  return undefined;
}

export const schemeProblem = (scheme: string) => `its scheme must be https: or http:, not ${scheme}`;
