import { describe, expect, it } from 'vitest';
import { formatJson, rawMember } from '../../src/json/raw.js';

const viaParse = (json: string, indent = 2) => JSON.stringify(JSON.parse(json), null, indent);

describe('formatJson', () => {
  describe('lays out ordinary input as JSON.stringify(JSON.parse(x), null, 2) would', () => {
    const cases: Array<[string, string]> = [
      ['flat object', '{"a":1,"b":"two","c":true,"d":null,"e":false}'],
      ['nested objects and arrays', '{"a":{"b":{"c":[1,2,{"d":[3,[4,5]]}]}},"e":[[],[{}],{"f":[]}]}'],
      ['empty object', '{}'],
      ['empty array', '[]'],
      ['empty containers as values', '{"a":{},"b":[],"c":[{},[]]}'],
      ['top-level array of mixed values', '[1,"x",null,true,false,{"k":"v"},[2]]'],
      ['top-level string', '"just a string"'],
      ['top-level number', '42'],
      ['top-level null', 'null'],
      ['strings with escapes', '{"q":"say \\"hi\\"","b":"back\\\\slash","n":"line\\nbreak","t":"tab\\there"}'],
      ['strings holding JSON punctuation', '{"p":"{[:,]}","q":"a, b: c"}'],
      ['unicode text', '{"name":"José Müller","cjk":"東京","emoji":"🥋"}'],
      ['negative and fractional numbers', '{"a":-3,"b":0.5,"c":-12.25}'],
      ['whitespace-laden input', ' \n\t{ "a" :\r\n [ 1 , 2 ,\t3 ] ,\n  "b" : { "c" : "d e" } , "e" : [ ] , "f" : { } }\n '],
    ];
    it.each(cases)('%s', (_name, json) => {
      expect(formatJson(json, 2)).toBe(viaParse(json));
    });

    it('uses 2 as the default indent', () => {
      const json = '{"a":[1,{"b":2}]}';
      expect(formatJson(json)).toBe(viaParse(json));
    });

    it('matches other indents too', () => {
      const json = '{"a":[1,{"b":2}],"c":{}}';
      expect(formatJson(json, 4)).toBe(viaParse(json, 4));
      expect(formatJson(json, 1)).toBe(viaParse(json, 1));
    });
  });

  describe('keeps what JSON.parse would change', () => {
    it.each(['1.0', '1e2', '1E+2', '-0', '12345678901234567890123', '0.10', '2.50e-3'])('number token %s byte for byte', (number) => {
      const out = formatJson(`{"n":${number},"list":[${number}]}`, 2);
      expect(out).toBe(`{\n  "n": ${number},\n  "list": [\n    ${number}\n  ]\n}`);
    });

    it('keeps a bare top-level number token as sent', () => {
      expect(formatJson('1.0', 2)).toBe('1.0');
      expect(formatJson('12345678901234567890123', 2)).toBe('12345678901234567890123');
    });

    it('keeps key order for integer-like keys', () => {
      const out = formatJson('{"b":1,"2":2}', 2);
      expect(out).toBe('{\n  "b": 1,\n  "2": 2\n}');
      expect(out.indexOf('"b"')).toBeLessThan(out.indexOf('"2"'));
      // What JSON.parse would have done, to show the test means something.
      expect(viaParse('{"b":1,"2":2}')).not.toBe(out);
    });

    it('keeps key order in nested objects', () => {
      expect(formatJson('{"x":{"z":1,"10":2,"a":3}}', 0)).toBe('{"x":{"z":1,"10":2,"a":3}}');
    });

    it('keeps string escapes as sent', () => {
      const out = formatJson('{"name":"Jos\\u00e9","s":"a\\/b","u":"\\ud83e\\udd4b"}', 2);
      expect(out).toContain('"Jos\\u00e9"');
      expect(out).not.toContain('José');
      expect(out).toContain('"a\\/b"');
      expect(out).toContain('"\\ud83e\\udd4b"');
    });

    it('keeps duplicate keys (no merging)', () => {
      expect(formatJson('{"a":1,"a":2}', 0)).toBe('{"a":1,"a":2}');
    });
  });

  describe('indent 0', () => {
    it('gives compact output', () => {
      const json = ' { "a" : [ 1 , { "b" : "c d" } ] , "e" : { } , "f" : [ ] } ';
      const out = formatJson(json, 0);
      expect(out).toBe('{"a":[1,{"b":"c d"}],"e":{},"f":[]}');
      expect(out).toBe(JSON.stringify(JSON.parse(json)));
    });

    it('keeps spaces inside strings', () => {
      expect(formatJson('{ "k e y" : " v  a l " }', 0)).toBe('{"k e y":" v  a l "}');
    });

    it('contains no newlines', () => {
      expect(formatJson('{\n"a":\n[\n1,\n2\n]\n}', 0)).not.toMatch(/\n/);
    });
  });
});

describe('rawMember', () => {
  it('extracts a top-level member text exactly', () => {
    const json = '{"data":{"id":1.0,"b":1,"2":2,"big":12345678901234567890123},"other":true}';
    expect(rawMember(json, 'data')).toBe('{"id":1.0,"b":1,"2":2,"big":12345678901234567890123}');
    expect(rawMember(json, 'other')).toBe('true');
  });

  it('keeps whitespace inside the member as sent', () => {
    const json = '{ "data" : [ 1 ,\n 2 ] , "x" : 0 }';
    expect(rawMember(json, 'data')).toBe('[ 1 ,\n 2 ]');
  });

  it('extracts scalar members', () => {
    const json = '{"s":"Jos\\u00e9","n":-0,"f":1e2,"z":null,"t":false}';
    expect(rawMember(json, 's')).toBe('"Jos\\u00e9"');
    expect(rawMember(json, 'n')).toBe('-0');
    expect(rawMember(json, 'f')).toBe('1e2');
    expect(rawMember(json, 'z')).toBe('null');
    expect(rawMember(json, 't')).toBe('false');
  });

  it('extracts empty containers', () => {
    expect(rawMember('{"data":{}}', 'data')).toBe('{}');
    expect(rawMember('{"data":[]}', 'data')).toBe('[]');
  });

  it('ignores nested members of the same name', () => {
    const json = '{"meta":{"data":"nested"},"list":[{"data":2}],"data":"top"}';
    expect(rawMember(json, 'data')).toBe('"top"');
  });

  it('is undefined when only nested members have the name', () => {
    expect(rawMember('{"meta":{"data":1},"list":[{"data":2}]}', 'data')).toBeUndefined();
  });

  it('lets the last duplicate win, as JSON.parse does', () => {
    const json = '{"data":{"first":1},"x":0,"data":[2, 3]}';
    expect(rawMember(json, 'data')).toBe('[2, 3]');
    expect(JSON.parse(rawMember(json, 'data')!)).toEqual(JSON.parse(json).data);
  });

  it('is undefined when the member is absent', () => {
    expect(rawMember('{"a":1,"b":{"c":2}}', 'data')).toBeUndefined();
    expect(rawMember('{}', 'data')).toBeUndefined();
  });

  it.each(['[{"data":1}]', '"data"', '42', 'null', 'true', '[]'])('is undefined when the top level is not an object: %s', (json) => {
    expect(rawMember(json, 'data')).toBeUndefined();
  });

  it('works when data is a string containing braces, quotes and escaped quotes', () => {
    const value = '"{not an object} [nor \\"an\\" array], \\"data\\": 1 }"';
    const json = `{"data":${value},"after":{"data":"no"}}`;
    expect(rawMember(json, 'data')).toBe(value);
    expect(JSON.parse(rawMember(json, 'data')!)).toBe(JSON.parse(json).data);
  });

  it('is not confused by a string ending in an escaped backslash', () => {
    const json = '{"a":"ends with \\\\","data":{"k":"}"}}';
    expect(rawMember(json, 'data')).toBe('{"k":"}"}');
  });

  it('matches a member whose key is written with escapes', () => {
    expect(rawMember('{"d\\u0061ta":5}', 'data')).toBe('5');
  });

  it('skips members whose values contain braces inside strings', () => {
    const json = '{"x":{"s":"}}}]]"},"data":7}';
    expect(rawMember(json, 'data')).toBe('7');
  });
});
