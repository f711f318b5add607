/** Socket and TLS failures, turned into messages that say what happened and what to do. */
import { GymApiError, type FailureReason } from '../errors.js';
import { RETRYABLE_CODES } from './retry.js';
import type { Operation } from './types.js';

/** Certificate errors that a missing CA explains. */
const TLS_TRUST_CODES: ReadonlySet<string> = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
]);

/** The first error code along the cause chain (fetch wraps socket errors in a TypeError). */
function errorCode(error: unknown): { code: string | undefined; detail: string } {
  let current: unknown = error;
  let detail = error instanceof Error ? error.message : String(error);
  for (let depth = 0; current && depth < 5; depth++) {
    const { code, message, cause } = current as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof message === 'string' && message) detail = message;
    if (typeof code === 'string') return { code, detail };
    current = cause;
  }
  return { code: undefined, detail };
}

function describe(code: string | undefined, detail: string, host: string): { text: string; reason: FailureReason } {
  if (code === 'ECONNREFUSED') return { text: `could not connect to ${host} (connection refused)`, reason: 'connection_refused' };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return { text: `could not resolve ${host}`, reason: 'dns' };
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return { text: `could not connect to ${host} (connect timed out)`, reason: 'timeout' };
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') {
    return { text: `the connection to ${host} failed (${code})`, reason: 'connection_reset' };
  }
  if (code !== undefined && TLS_TRUST_CODES.has(code)) {
    return {
      text: `the TLS certificate of ${host} is not trusted (${code}); if your own CA signed it, point NODE_EXTRA_CA_CERTS at the CA's PEM file`,
      reason: 'tls',
    };
  }
  return { text: `the connection to ${host} failed (${code ?? detail})`, reason: 'network' };
}

/** A failure to reach the server, as a GymApiError (retryable when another attempt may work). */
export function networkError(error: unknown, url: string, operation: Operation<unknown>): GymApiError {
  const { code, detail } = errorCode(error);
  const { host, port } = new URL(url);
  if (detail === 'bad port') {
    // fetch refuses the "bad ports" of the fetch standard before connecting.
    return new GymApiError(
      'usage',
      `${operation.subject}: fetch refuses to connect to port ${port} (a "bad port" of the fetch standard): serve the API on another port`,
      { id: operation.id, cause: error },
    );
  }
  const { text, reason } = describe(code, detail, host);
  return new GymApiError('unavailable', `${operation.subject}: ${text}`, {
    id: operation.id,
    cause: error,
    reason,
    retryable: code !== undefined && RETRYABLE_CODES.has(code),
  });
}
