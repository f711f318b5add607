/** What an id is: a positive integer, up to 2^63−1 (the library checks ids with this; the CLI parses them in commands/shared/ids.ts). */
import type { Id } from './schemas.js';

/** The largest id: 2^63−1, the largest signed 64-bit integer, as many APIs' ids are. */
export const MAX_ID = 9_223_372_036_854_775_807n;

/** A number up to 2^53−1, or a bigint up to 2^63−1; positive either way. */
export function isValidId(value: unknown): value is Id {
  if (typeof value === 'bigint') return value > 0n && value <= MAX_ID;
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}
