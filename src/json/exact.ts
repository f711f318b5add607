/**
 * JSON without JSON.parse's losses: integers beyond 2^53 (64-bit ids) as bigints, every digit kept; nesting past a bound
 * refused first, as printing it indented grows with the square of the depth. The slow path runs only on 16-digit runs.
 */
import { endOfScalar, endOfString, skipSpace } from './raw.js';

/** Deeper than this, a response is refused: the API's own shapes nest three levels. */
export const MAX_JSON_DEPTH = 1000;

/** True when arrays and objects in `json` nest deeper than `limit` (strings are skipped). */
export function nestsDeeperThan(json: string, limit = MAX_JSON_DEPTH): boolean {
  if (json.length <= limit) return false;
  let depth = 0;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === 0x22) i = endOfString(json, i) - 1;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** 16 digits in a row: the only way a number can be an integer beyond 2^53. */
const LONG_DIGITS = /\d{16}/;

type Json = null | boolean | number | bigint | string | Json[] | { [key: string]: Json };

/** JSON.parse, but integers beyond Number.MAX_SAFE_INTEGER become bigints. */
export function parseJsonExact(text: string): unknown {
  const value: unknown = JSON.parse(text);
  if (!LONG_DIGITS.test(text)) return value;
  // Valid JSON from here on: a plain recursive descent, bigints where needed.
  let i = 0;
  const read = (): Json => {
    i = skipSpace(text, i);
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = endOfString(text, i);
      const string = JSON.parse(text.slice(i, end)) as string;
      i = end;
      return string;
    }
    if (c === 0x5b) {
      const array: Json[] = [];
      i = skipSpace(text, i + 1);
      while (text.charCodeAt(i) !== 0x5d) {
        array.push(read());
        i = skipSpace(text, i);
        if (text.charCodeAt(i) === 0x2c) i++;
      }
      i++;
      return array;
    }
    if (c === 0x7b) {
      const object: { [key: string]: Json } = {};
      i = skipSpace(text, i + 1);
      while (text.charCodeAt(i) !== 0x7d) {
        const key = read() as string;
        i = skipSpace(text, i) + 1; // the colon
        // defineProperty, as JSON.parse does: "__proto__" is a member like any other.
        Object.defineProperty(object, key, { value: read(), enumerable: true, writable: true, configurable: true });
        i = skipSpace(text, i);
        if (text.charCodeAt(i) === 0x2c) i = skipSpace(text, i + 1);
      }
      i++;
      return object;
    }
    const end = endOfScalar(text, i);
    const token = text.slice(i, end);
    i = end;
    if (token === 'true') return true;
    if (token === 'false') return false;
    if (token === 'null') return null;
    const number = Number(token);
    return !Number.isSafeInteger(number) && /^-?\d+$/.test(token) ? BigInt(token) : number;
  };
  return read();
}

/** JSON.stringify, but bigints are written as the integers they are, every digit. */
export function stringifyExact(value: unknown, indent?: number): string {
  // A bigint goes through JSON.stringify as a marked string, unmarked after. The mark is one no key or string holds,
  // so a string that happens to read like a mark stays a string.
  for (let n = 0; ; n++) {
    const mark = `\u0000bigint${n}:`;
    let clash = false;
    const text = JSON.stringify(
      value,
      (key, member: unknown) => {
        if (key.includes(mark) || (typeof member === 'string' && member.includes(mark))) clash = true;
        return typeof member === 'bigint' ? `${mark}${member}` : member;
      },
      indent,
    );
    if (clash) continue;
    const written = JSON.stringify(mark).slice(1, -1); // as JSON writes it: \u0000bigint0:
    return text.includes(written) ? text.replaceAll(new RegExp(`"${written.replaceAll('\\', '\\\\')}(-?\\d+)"`, 'g'), '$1') : text;
  }
}
