/** JSON without loss: 64-bit ids kept as bigints, and nesting past a bound refused before anything is built. */
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestsDeeperThan, parseJsonExact, stringifyExact } from '../../src/json/exact.js';

/** A 64-bit id, beyond 2^53: its mere presence sends parseJsonExact down the slow path. */
const BIG = '9223372036854775807';
const big = 9223372036854775807n;

describe('nestsDeeperThan', () => {
  // Nesting with something between the brackets: the guard counts every opening, not runs of them.
  const arrays = (depth: number) => `${'[1,'.repeat(depth)}1${']'.repeat(depth)}`;
  const objects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  const mixed = (depth: number) => `${'{"a":[1,'.repeat(depth / 2)}1${']}'.repeat(depth / 2)}`;

  it.each([
    ['arrays', arrays],
    ['objects', objects],
    ['arrays in objects', mixed],
  ])('%s: as deep as the bound passes, one level more does not', (_name, nest) => {
    expect(nestsDeeperThan(nest(MAX_JSON_DEPTH))).toBe(false);
    expect(nestsDeeperThan(nest(MAX_JSON_DEPTH + 2))).toBe(true);
    expect(nestsDeeperThan(nest(10), 10)).toBe(false);
    expect(nestsDeeperThan(nest(12), 10)).toBe(true);
    expect(() => JSON.parse(nest(12))).not.toThrow();
  });

  it('takes the bound exactly: depth 11 is deeper than 10, depth 10 is not', () => {
    expect(nestsDeeperThan(arrays(11), 10)).toBe(true);
    expect(nestsDeeperThan(objects(11), 10)).toBe(true);
    expect(nestsDeeperThan(`${'['.repeat(11)}${']'.repeat(11)}`, 10)).toBe(true);
    expect(nestsDeeperThan(`${'['.repeat(10)}${']'.repeat(10)}`, 10)).toBe(false);
    expect(nestsDeeperThan(`${'{"a":'.repeat(1001)}1${'}'.repeat(1001)}`)).toBe(true);
  });

  it('counts depth, not the number of arrays and objects: closed siblings do not add up', () => {
    const siblings = (item: string) => `[${Array.from({ length: 30 }, () => item).join(',')}]`;
    expect(nestsDeeperThan(siblings('[1]'), 5)).toBe(false);
    expect(nestsDeeperThan(siblings('{"a":1}'), 5)).toBe(false);
    expect(nestsDeeperThan(siblings('[{"a":[]}]'), 5)).toBe(false);
  });

  it('skips brackets and quotes inside strings, escaped quotes included', () => {
    expect(nestsDeeperThan(JSON.stringify({ a: '[[[[[[[[[[[[{{{{{{{{{{' }), 3)).toBe(false);
    expect(nestsDeeperThan(JSON.stringify({ a: '"[[[[[[[[[[[[', b: '\\' }), 3)).toBe(false);
    expect(nestsDeeperThan(JSON.stringify({ a: ']]]]]]]]]]]]]' }) + arrays(4), 3)).toBe(true);
    // Right after a string comes what follows it: a bracket there is counted.
    expect(nestsDeeperThan(`[${Array.from({ length: 6 }, () => '["a"]').join(',')}]`, 3)).toBe(false);
    expect(nestsDeeperThan(`["a"${'['.repeat(4)}`, 3)).toBe(true);
  });

  it('is false for text no longer than the bound, whatever it holds', () => {
    expect(nestsDeeperThan('[[[[', 4)).toBe(false);
    expect(nestsDeeperThan('[[[[[', 4)).toBe(true);
    expect(nestsDeeperThan('', 0)).toBe(false);
    expect(nestsDeeperThan('1', 0)).toBe(false);
  });
});

describe('parseJsonExact', () => {
  it('is JSON.parse for text without a long run of digits', () => {
    const text = '{"a":[1,-2.5,1e3,true,false,null,"x"],"b":{},"c":[],"d":9007199254740991}';
    expect(parseJsonExact(text)).toEqual(JSON.parse(text));
  });

  it('keeps a 64-bit id whole, as a bigint, and a safe integer of 16 digits as a number', () => {
    expect(parseJsonExact(BIG)).toBe(big);
    expect(parseJsonExact(`-${BIG}`)).toBe(-big);
    expect(parseJsonExact('9007199254740992')).toBe(9007199254740992n);
    expect(parseJsonExact('9007199254740991')).toBe(9007199254740991);
    expect(parseJsonExact('{"id":12345678901234567890}')).toEqual({ id: 12345678901234567890n });
  });

  it('leaves numbers that are not integers as numbers, however many digits they have', () => {
    const texts = ['0.12345678901234567890', '12345678901234567890.5', '1234567890123456789e2', '-1234567890123456789.0', '-0'];
    expect(parseJsonExact(`[${texts.join(', ')}]`)).toEqual(texts.map(Number));
  });

  // false, true and null beside a 64-bit id: the slow path reads them itself.
  it('reads true, false and null beside a 64-bit id', () => {
    expect(parseJsonExact(`[true,false,null,${BIG}]`)).toEqual([true, false, null, big]);
    expect(parseJsonExact(`{"id":${BIG},"primary":false,"active":true,"photo":null}`)).toEqual({ id: big, primary: false, active: true, photo: null });
    const parsed = parseJsonExact(`[false, ${BIG}, true, null]`) as unknown[];
    expect(parsed.map((value) => typeof value)).toEqual(['boolean', 'bigint', 'boolean', 'object']);
    expect(parsed[0]).toBe(false);
    expect(parsed[2]).toBe(true);
    expect(parsed[3]).toBeNull();
  });

  it('reads every shape on the slow path as JSON.parse does: nesting, empty containers, white space, escapes', () => {
    const text = ` {\n "data" : [ {"id" : ${BIG} , "tags" : [ ] , "meta" : { } , "n" : [ 1 , [ 2 , [ ] ] ] } ,\t{ } , [ ] ] ,\r\n "s" : "a\\"b\\\\c\\u00e9\\n[{" , "\\u0061\\"k" : -1.5e-3 , "e" : "" } `;
    expect(parseJsonExact(text)).toEqual({
      data: [{ id: big, tags: [], meta: {}, n: [1, [2, []]] }, {}, []],
      s: 'a"b\\cé\n[{',
      'a"k': -1.5e-3,
      e: '',
    });
    expect(parseJsonExact(`[${BIG},{"a":[{"b":{}}]},"x"]`)).toEqual([big, { a: [{ b: {} }] }, 'x']);
    expect(parseJsonExact(`{"a":${BIG},"b":"${BIG}"}`)).toEqual({ a: big, b: BIG });
  });

  it('keeps "__proto__" as a member, and the last of a repeated name, as JSON.parse does', () => {
    const parsed = parseJsonExact(`{"__proto__":{"polluted":true},"id":${BIG},"id":1}`) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(['__proto__', 'id']);
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(parsed, '__proto__')).toEqual({ value: { polluted: true }, enumerable: true, writable: true, configurable: true });
    expect(parsed.id).toBe(1);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('throws a SyntaxError on invalid JSON, with or without a long number', () => {
    expect(() => parseJsonExact('{"a":')).toThrow(SyntaxError);
    expect(() => parseJsonExact(`[${BIG},]`)).toThrow(SyntaxError);
  });
});

describe('stringifyExact', () => {
  it('writes bigints as the integers they are, negative ones too, every digit', () => {
    expect(stringifyExact({ id: big, neg: -big, small: 5n, list: [1n, 'x'] })).toBe(`{"id":${BIG},"neg":-${BIG},"small":5,"list":[1,"x"]}`);
    expect(stringifyExact(big)).toBe(BIG);
  });

  it('is JSON.stringify for everything else, indent included', () => {
    const value = { a: [1, 'two', null, true], b: { c: 'bigint:1' } };
    expect(stringifyExact(value)).toBe(JSON.stringify(value));
    expect(stringifyExact(value, 2)).toBe(JSON.stringify(value, null, 2));
    expect(stringifyExact({ id: 1n, a: [2n] }, 2)).toBe('{\n  "id": 1,\n  "a": [\n    2\n  ]\n}');
  });

  it('a string or a key that reads like its internal mark stays a string, beside a bigint or not', () => {
    const value = { a: '\u0000bigint:5', b: '\u0000bigint0:7', '\u0000bigint0:1': 'k', c: '\u0000bigint1:2x' };
    expect(stringifyExact(value)).toBe(JSON.stringify(value));
    expect(stringifyExact({ ...value, id: big }, 2)).toBe(JSON.stringify({ ...value, id: 0 }, null, 2).replace('"id": 0', `"id": ${BIG}`));
    expect(parseJsonExact(stringifyExact({ ...value, id: big }))).toEqual({ ...value, id: big });
    for (const one of [{ b: '\u0000bigint0:7' }, { b: ['\u0000bigint0:7', big] }, { '\u0000bigint0:7': big }])
      expect(parseJsonExact(stringifyExact(one)), JSON.stringify(Object.keys(one))).toEqual(one);
  });

  it('round-trips what parseJsonExact reads', () => {
    const text = `{"id":${BIG},"ids":[-${BIG},1,2.5],"name":"x"}`;
    expect(stringifyExact(parseJsonExact(text))).toBe(text);
  });
});
