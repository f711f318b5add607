/** The limits of `gymctl mcp`, one value each for the whole server, from the command's options. */
import { parseConcurrency } from '../commands/shared/batch.js';
import { parseTimeout } from '../config/settings.js';
import { usageError } from '../failures.js';

/** Under the 60 s the official SDK client waits for an answer, with room for the answer to reach it. */
export const DEFAULT_CALL_TIMEOUT_MS = 45_000;
/** 1 MB, both copies of an answer (structured and text) counted. */
export const DEFAULT_MAX_ANSWER_BYTES = 1024 * 1024;
/** Below this, not even a shortened answer with its note fits. */
export const MIN_MAX_ANSWER_BYTES = 16 * 1024;
/** Well under the 10 MiB line the official SDK's stdio reader takes. */
export const MAX_MAX_ANSWER_BYTES = 8 * 1024 * 1024;

export interface McpLimits {
  /** Requests in flight at the API, across every call. */
  concurrency: number;
  /** One tool call, from its start to its answer, retries included. */
  callTimeoutMs: number;
  /** One tool result as written: its structured content and its text together. */
  maxAnswerBytes: number;
}

const UNITS: Record<string, number> = { '': 1, b: 1, kb: 1024, k: 1024, mb: 1024 * 1024, m: 1024 * 1024 };

/** `1MB`, `256KB`, `2m`, `65536`: binary units (1 KB = 1,024 bytes), within the limits above. */
export function parseSize(text: string, option: string): number {
  const match = /^([0-9]+(?:\.[0-9]+)?)\s*([a-z]*)$/i.exec(text.trim());
  const unit = match ? UNITS[match[2]!.toLowerCase()] : undefined;
  const bytes = match && unit !== undefined ? Math.floor(Number(match[1]) * unit) : Number.NaN;
  if (!(bytes >= MIN_MAX_ANSWER_BYTES && bytes <= MAX_MAX_ANSWER_BYTES)) {
    throw usageError(`invalid ${option} ${JSON.stringify(text)}: expected a size from 16KB to 8MB, such as 256KB or 2MB (1 KB = 1,024 bytes)`);
  }
  return bytes;
}

export function parseLimits(flags: { concurrency?: string | undefined; callTimeout?: string | undefined; maxAnswer?: string | undefined }): McpLimits {
  return {
    concurrency: parseConcurrency(flags.concurrency),
    callTimeoutMs: flags.callTimeout === undefined ? DEFAULT_CALL_TIMEOUT_MS : parseTimeout(flags.callTimeout, '--call-timeout'),
    maxAnswerBytes: flags.maxAnswer === undefined ? DEFAULT_MAX_ANSWER_BYTES : parseSize(flags.maxAnswer, '--max-answer'),
  };
}
