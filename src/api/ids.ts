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
export function parseId(text: string, what = 'id', where = ''): number {
  if (DECIMAL.test(text)) {
    const value = Number(text);
    if (Number.isSafeInteger(value)) return value;
  }
  const shown = text === '' ? 'an empty string' : JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
  throw usageError(`invalid ${what} ${shown}${where}: expected a positive whole number (no sign, point or leading zero) no larger than 9007199254740991`);
}

/**
 * Ids from text such as stdin: separated by any white space, one or many a
 * line; blank lines and `#` comments are skipped. Every id is checked, so
 * one bad id stops the whole list before anything is sent.
 */
export function parseIdList(text: string, what = 'id', source = 'stdin'): number[] {
  const ids: number[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    for (const token of line.replace(/#.*/, '').split(/\s+/)) {
      if (token !== '') ids.push(parseId(token, what, ` (${source} line ${index + 1})`));
    }
  });
  return ids;
}
