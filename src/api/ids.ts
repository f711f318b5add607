import { usageError } from './errors.js';

/** A positive decimal integer no larger than 2^53−1, written plainly. */
const DECIMAL = /^[1-9][0-9]{0,15}$/;

export function isValidId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

/**
 * Parses an id as typed by a user. Only plain decimal digits are ids: no
 * sign, fraction, exponent, hex, spaces or path characters, so nothing but a
 * number can reach a request path.
 */
export function parseId(text: string, what = 'id'): number {
  if (DECIMAL.test(text)) {
    const value = Number(text);
    if (Number.isSafeInteger(value)) return value;
  }
  const shown = text === '' ? 'an empty string' : JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
  throw usageError(`invalid ${what} ${shown}: expected a positive whole number no larger than 9007199254740991`);
}
