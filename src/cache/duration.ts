/** Durations as gh and Go write them: `90s`, `5m`, `1h30m`, `2d`. */
import { usageError } from '../failures.js';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** The longest a cached answer may be used: a year. */
const MAX_CACHE_MS = 365 * UNITS.d!;

/** A duration's milliseconds (`90s`, `500ms`, `1h30m`), or undefined when the text is not one. */
export function durationMs(text: string): number | undefined {
  if (!/^(?:\d+(?:ms|s|m|h|d))+$/.test(text)) return undefined;
  return [...text.matchAll(/(\d+)(ms|s|m|h|d)/g)].reduce((sum, [, count, unit]) => sum + Number(count) * UNITS[unit!]!, 0);
}

export function parseDuration(text: string, origin: string): number {
  const ms = durationMs(text) ?? 0;
  if (!(ms > 0 && ms <= MAX_CACHE_MS)) {
    throw usageError(
      `invalid duration ${JSON.stringify(text)} (from ${origin}): expected a number and a unit (ms, s, m, h, d) such as 30s, 5m or 1h30m, more than 0 and at most 365d`,
    );
  }
  return ms;
}
