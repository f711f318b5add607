import { describe, expect, it } from 'vitest';
import { GymctlError } from '../../src/api/errors.js';
import { isValidId } from '../../src/api/ids.js';
import { parseId, parseIdArgument, parseIdList } from '../../src/commands/shared/ids.js';

function caught(fn: () => unknown): GymctlError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(GymctlError);
    return error as GymctlError;
  }
  throw new Error('expected a GymctlError, but nothing was thrown');
}

describe('parseId', () => {
  it.each([
    ['1', 1],
    ['42', 42],
    ['9007199254740991', 9007199254740991],
    ['10', 10],
    ['501', 501],
    // Beyond 2^53 a double would round: bigints, every digit kept, up to 2^63−1.
    ['9007199254740992', 9007199254740992n],
    ['12345678901234567890'.slice(0, 19), 1234567890123456789n],
    ['9223372036854775807', 9223372036854775807n],
  ])('accepts %s', (text, value) => {
    expect(parseId(text)).toBe(value);
  });

  const invalid = [
    'abc',
    '-1',
    '1.5',
    '0x10',
    '1e3',
    '',
    '../me',
    '12345678901234567890',
    '9223372036854775808',
    '0',
    '01',
    ' 1',
    '1 ',
    '+1',
    '١',
    '1/2',
    '1\n',
    '1?x=1',
    '%31',
    'Infinity',
    'NaN',
    // A little off an id: digits with something before or after them, or digits where the pattern wants none.
    'x1',
    '1x',
    'a12345678901234567',
    '12345678901234567a',
    '1.0',
    '10000000000000000000',
    '-9223372036854775807',
  ];

  it.each(invalid)('rejects %j with a usage error', (text) => {
    const error = caught(() => parseId(text));
    expect(error.kind).toBe('usage');
    expect(error.status).toBeUndefined();
  });

  it.each(invalid.filter((text) => text !== ''))('names the given text %j in the message', (text) => {
    expect(caught(() => parseId(text)).message).toContain(JSON.stringify(text));
  });

  it('says when the text was empty', () => {
    expect(caught(() => parseId('')).message).toMatch(/empty/);
  });

  it('states the accepted range when that is what went wrong, and only then', () => {
    expect(caught(() => parseId('9223372036854775808')).message).toContain('(expected a whole number no larger than 9223372036854775807)');
    expect(caught(() => parseId('0')).message).toBe('invalid id "0" (expected a positive whole number)');
    // Digits with something after them are not an id at all, however many digits there are.
    expect(caught(() => parseId('99999999999999999999x')).message).toBe('invalid id "99999999999999999999x" (expected a positive whole number)');
  });

  it('names what was being parsed', () => {
    expect(caught(() => parseId('x', 'academy id')).message).toMatch(/^invalid academy id "x"/);
    expect(caught(() => parseId('x')).message).toMatch(/^invalid id "x"/);
  });

  it('quotes input of up to 40 characters whole, and cuts what is longer at 40', () => {
    const forty = `x${'1'.repeat(39)}`;
    expect(caught(() => parseId(forty)).message).toContain(`${JSON.stringify(forty)} (`);
    expect(caught(() => parseId(`${forty}2`)).message).toContain(`${JSON.stringify(`${forty}…`)} (`);
  });

  it('names the rule a zero-padded id breaks, and the id meant', () => {
    expect(caught(() => parseId('07', 'academy id')).message).toBe('invalid academy id "07": no leading zeros (write 7)');
    expect(caught(() => parseId('0012', 'member id', ' (stdin line 3)')).message).toBe('invalid member id "0012" (stdin line 3): no leading zeros (write 12)');
    expect(caught(() => parseIdArgument('1,010', 'member id')).message).toBe('invalid member id "010": no leading zeros (write 10)');
    // Zeros alone are no id to write instead.
    expect(caught(() => parseId('00')).message).toBe('invalid id "00" (expected a positive whole number)');
    // Nor is a padded id followed by more than digits: "write 7" would drop the rest.
    expect(caught(() => parseId('07x')).message).toBe('invalid id "07x" (expected a positive whole number)');
  });

  it('shortens very long input in the message', () => {
    const long = 'a'.repeat(500);
    const message = caught(() => parseId(long)).message;
    expect(message).toContain('a'.repeat(40));
    expect(message).not.toContain('a'.repeat(41));
    expect(message.length).toBeLessThan(200);
  });
});

describe('parseIdArgument', () => {
  it('takes one id, or several separated by commas, each checked as parseId checks it', () => {
    expect(parseIdArgument('7')).toEqual([7]);
    expect(parseIdArgument('1,2,9223372036854775807')).toEqual([1, 2, 9223372036854775807n]);
    expect(caught(() => parseIdArgument('1,x', 'academy id')).message).toBe('invalid academy id "x" (expected a positive whole number)');
    expect(caught(() => parseIdArgument('')).message).toBe('invalid id an empty string (expected a positive whole number)');
  });

  it('names an empty place in the list, and where it is', () => {
    const bad = (text: string, what?: string) => caught(() => parseIdArgument(text, what));
    expect(bad('1,,2').message).toBe('invalid id list "1,,2": an empty id between two commas (write several as 1,2,3)');
    expect(bad(',1', 'academy id').message).toBe('invalid academy id list ",1": an empty academy id before the first comma (write several as 1,2,3)');
    expect(bad('1,').message).toBe('invalid id list "1,": an empty id after the last comma (write several as 1,2,3)');
    expect(bad('1,2,').message).toBe('invalid id list "1,2,": an empty id after the last comma (write several as 1,2,3)');
    expect(bad(',').message).toBe('invalid id list ",": an empty id before the first comma (write several as 1,2,3)');
    expect(bad('1,,2').kind).toBe('usage');
  });
});

describe('parseIdList', () => {
  it('takes ids separated by any run of white space, on one line or many, skipping # comments', () => {
    expect(parseIdList('1  2\t\t3\n4\r\n\r\n5')).toEqual([1, 2, 3, 4, 5]);
    expect(parseIdList('  7 \n\t8\t')).toEqual([7, 8]);
    expect(parseIdList('1 #99 98\n# 97\n2#96')).toEqual([1, 2]);
    expect(parseIdList('9223372036854775807')).toEqual([9223372036854775807n]);
    expect(parseIdList('')).toEqual([]);
    expect(parseIdList('\n \n')).toEqual([]);
  });

  it('names the source and the line of a bad id, counting lines from 1 whatever their ends', () => {
    const bad = (text: string, ...rest: [string?, string?]) => caught(() => parseIdList(text, ...rest)).message;
    expect(bad('x')).toMatch(/^invalid id "x" \(stdin line 1\)/);
    expect(bad('1\n2 x')).toMatch(/^invalid id "x" \(stdin line 2\)/);
    expect(bad('1\r\n2\r\n\r\nx')).toMatch(/^invalid id "x" \(stdin line 4\)/);
    expect(bad('1\n-2', 'academy id', 'ids.txt')).toMatch(/^invalid academy id "-2" \(ids\.txt line 2\)/);
    expect(caught(() => parseIdList('1 2 0')).kind).toBe('usage');
  });
});

describe('isValidId', () => {
  it.each([1, 42, 9007199254740991, 9007199254740992n, 9223372036854775807n])('accepts %s', (value) => {
    expect(isValidId(value)).toBe(true);
  });

  it.each([0, -1, 1.5, 9007199254740992, NaN, Infinity, '1', null, undefined, 0n, -1n, 9223372036854775808n, [1], {}])('rejects %s', (value) => {
    expect(isValidId(value)).toBe(false);
  });
});
