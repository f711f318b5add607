/** Ids as users type them: in arguments, comma-separated, or a list on stdin. */
import { MAX_ID } from '../../api/ids.js';
import type { Id } from '../../api/schemas.js';
import { usageError } from '../../failures.js';

/** A positive decimal integer of at most 19 digits, written plainly. */
const DECIMAL = /^[1-9][0-9]{0,18}$/;

/** An id as typed: plain decimal digits only (no sign, fraction, exponent, hex, spaces or path characters), so only a number reaches a request path. */
export function parseId(text: string, what = 'id', where = ''): Id {
  if (DECIMAL.test(text)) {
    const value = Number(text);
    if (Number.isSafeInteger(value)) return value;
    const big = BigInt(text);
    if (big <= MAX_ID) return big;
  }
  const shown = text === '' ? 'an empty string' : JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
  // Short, so that it fits a terminal line; the limit only when it is what went wrong, however many digits there are.
  const unpadded = /^0+([1-9][0-9]*)$/.exec(text)?.[1];
  if (unpadded !== undefined) throw usageError(`invalid ${what} ${shown}${where}: no leading zeros (write ${unpadded})`);
  if (/^[1-9][0-9]*$/.test(text)) throw usageError(`${what} ${shown}${where} is too large (expected a whole number no larger than ${MAX_ID})`);
  throw usageError(`invalid ${what} ${shown}${where} (expected a positive whole number)`);
}

/** One argument's ids: one id, or several separated by commas (`1,2,3`); an empty place in the list is said as such, and where it is. */
export function parseIdArgument(text: string, what = 'id'): Id[] {
  const parts = text.split(',');
  if (parts.length === 1) return [parseId(text, what)];
  return parts.map((part, index) => {
    if (part !== '') return parseId(part, what);
    const place = index === 0 ? 'before the first comma' : index === parts.length - 1 ? 'after the last comma' : 'between two commas';
    throw usageError(`invalid ${what} list ${JSON.stringify(text)}: an empty ${what} ${place} (write several as 1,2,3)`);
  });
}

/** Ids from text such as stdin, separated by any white space; blank lines and `#` comments skipped. One bad id stops the list before anything is sent. */
export function parseIdList(text: string, what = 'id', source = 'stdin'): Id[] {
  const ids: Id[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    for (const token of line.replace(/#.*/, '').split(/\s+/)) {
      if (token !== '') ids.push(parseId(token, what, ` (${source} line ${index + 1})`));
    }
  });
  return ids;
}
