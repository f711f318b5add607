import { describe, expect, it } from 'vitest';
import { academySchema, apiKeySchema, familyMemberSchema } from '../../src/api/public.js';
import { csvColumns, csvField, csvHeader, csvLine, csvRow, fieldText, valueAt } from '../../src/output/csv.js';

describe('csvField (RFC 4180)', () => {
  it('leaves plain text alone and quotes commas, quotes and line breaks', () => {
    expect(csvField('plain text')).toBe('plain text');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\rhere')).toBe('"cr\rhere"');
    expect(csvField('')).toBe('');
  });
});

describe('csvColumns', () => {
  it('flattens nested objects to dotted names in schema order', () => {
    expect(csvColumns(academySchema).map((c) => c.name)).toEqual([
      'id',
      'name',
      'currency',
      'email',
      'phone',
      'address.line1',
      'address.line2',
      'address.city',
      'address.state',
      'address.postalCode',
      'address.country',
      'coordinates.lat',
      'coordinates.lng',
      'franchiseId',
      'logoUrl',
      'createdAt',
    ]);
    expect(csvColumns(familyMemberSchema).map((c) => c.name)).toEqual(['id', 'academyId', 'firstName', 'lastName', 'photoUrl.thumbnail', 'photoUrl.large', 'primaryFamilyMember']);
    expect(csvColumns(apiKeySchema).map((c) => c.name)).toEqual(['id', 'name', 'academyIds', 'user.id', 'user.name', 'user.email']);
  });
});

describe('csvRow', () => {
  it('gives every column a field, empty where the record has nothing, whatever the record holds', () => {
    const columns = csvColumns(academySchema);
    const row = csvRow(columns, { id: 3, name: 'No address', address: null, extra: 'dropped' });
    expect(row).toBe(`3,No address${','.repeat(columns.length - 2)}\r\n`);
    expect(csvHeader(columns).split(',')).toHaveLength(columns.length);
  });
  it('writes numbers, booleans and lists as text', () => {
    const keyColumns = csvColumns(apiKeySchema);
    expect(csvRow(keyColumns, { id: 1, name: 'k', academyIds: [1, 2, 3], user: { id: 9, name: 'A, B', email: null } })).toBe('1,k,1;2;3,9,"A, B",\r\n');
  });
  it('writes a negative number as the number it is, and an object in a cell as its JSON, quoted', () => {
    const columns = [
      { name: 'lat', path: ['lat'] },
      { name: 'tags', path: ['tags'] },
      { name: 'flag', path: ['flag'] },
    ];
    expect(csvRow(columns, { lat: -5, tags: { a: 1, b: 'x' }, flag: false })).toBe('-5,"{""a"":1,""b"":""x""}",false\r\n');
    expect(csvRow(columns, { lat: -33.86, tags: [{ a: 1 }, 2], flag: true })).toBe('-33.86,"{""a"":1};2",true\r\n');
  });
  it('leaves characters that reorder text as sent, unless told the output is a terminal', () => {
    const columns = [{ name: 'name', path: ['name'] }];
    expect(csvRow(columns, { name: 'abc\u202edef' })).toBe('abc\u202edef\r\n');
    expect(csvRow(columns, { name: 'abc\u202edef' }, true)).toBe('abc<U+202E>def\r\n');
    expect(csvLine(['abc\u202edef', 'x'])).toBe('abc\u202edef,x\r\n');
    expect(csvLine(['abc\u202edef', 'x'], true)).toBe('abc<U+202E>def,x\r\n');
  });
});

describe('fieldText and valueAt', () => {
  it('writes nothing for null and undefined, lists joined with semicolons, objects as JSON, the rest as text', () => {
    expect(fieldText(null)).toBe('');
    expect(fieldText(undefined)).toBe('');
    expect(fieldText([1, null, 'a'])).toBe('1;;a');
    expect(fieldText({ a: [1] })).toBe('{"a":[1]}');
    expect(fieldText(-5)).toBe('-5');
    expect(fieldText(12345678901234567890n)).toBe('12345678901234567890');
    expect(fieldText(false)).toBe('false');
  });
  it('follows a dotted path through objects, and stops at anything else', () => {
    const record = { address: { city: 'Lisboa', none: null }, list: ['a'] };
    expect(valueAt(record, ['address', 'city'])).toBe('Lisboa');
    expect(valueAt(record, [])).toBe(record);
    expect(valueAt(record, ['address', 'none', 'x'])).toBeUndefined();
    expect(valueAt(record, ['address', 'city', 'length'])).toBeUndefined();
    expect(valueAt(record, ['missing', 'x'])).toBeUndefined();
    expect(valueAt(null, ['x'])).toBeUndefined();
  });
});

describe('formula injection', () => {
  it.each([
    ['=HYPERLINK("https://evil.example","click")', `"'=HYPERLINK(""https://evil.example"",""click"")"`],
    ['@SUM(A1:A9)', "'@SUM(A1:A9)"],
    ["+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"],
    ['-2+3', "'-2+3"],
    ['\tx', "'\tx"],
    ['\r=1', `"'\r=1"`],
    // A little off a number or a phone number.
    ["+1+cmd|' /C calc'!A0", "'+1+cmd|' /C calc'!A0"],
    ['+351 21 300 0001=1', "'+351 21 300 0001=1"],
    ['+1 (512) 555-0142@x', "'+1 (512) 555-0142@x"],
    ['-1e', "'-1e"],
    ['-1e+', "'-1e+"],
    ['-1.2.3', "'-1.2.3"],
    ['-.', "'-."],
    ['-', "'-"],
    ['+', "'+"],
    ['-e5', "'-e5"],
    ['-5-', "'-5-"],
    ['-5 ', "'-5 "],
    ['--5', "'--5"],
    ['-1e3+2', "'-1e3+2"],
    ['-A1', "'-A1"],
    ['+A1', "'+A1"],
    // Behind controls that a spreadsheet skips: the first character after them decides.
    ['\u0000\tx', "'^@\tx"],
    ['\u0000\rx', `"'^@\rx"`],
    ['\u0007\u0000+A1', "'^G^@+A1"],
    // A control after a number is not part of a number.
    ['-1\u0007', "'-1^G"],
    ['+351 21\u0000', "'+351 21^@"],
  ])('neutralises %j', (value, cell) => {
    expect(csvField(value)).toBe(cell);
  });

  it.each([
    '-33.86',
    '38.7118',
    '-5',
    '+5',
    '-0',
    '-5.',
    '-.5',
    '-.55',
    '+0.25',
    '-1e3',
    '-1e10',
    '-1E+10',
    '-2.5e-3',
    '+.5E7',
    '+351 21 300 0001',
    '+15125550142',
    '+1 (512) 555-0142',
    '+1.512.555.0142',
    '1e3',
    'Ana',
    "O'Brien",
    '2019-03-04T09:30:00Z',
    'a=1',
    'a@b',
  ])('leaves %j as it is', (value) => {
    expect(csvField(value)).toBe(/[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);
  });
});

describe('CSV and what hides in a cell', () => {
  it('a formula behind leading control characters is neutralised: the first character that is not a control decides', () => {
    for (const hidden of ['\u0000=1+1', '\u0000\u0000@SUM(A1)', '\u001b=HYPERLINK("x")', '\u0007+cmd|x', '\u0000-2+3']) {
      expect(csvField(hidden), JSON.stringify(hidden)).toMatch(/^"?'/);
    }
    expect(csvField('\u0000-33.86')).toBe('^@-33.86');
    expect(csvField('plain\u0000')).toBe('plain^@');
  });

  it('never writes a raw control character: NUL, ESC, BEL and C1 controls are shown in caret notation; tab and line breaks stay, quoted', () => {
    const out = csvField('a\u0000b\u001b[2Jc\u0007d\u009be\tf\ng');
    expect(out).toBe('"a^@b^[[2Jc^Gd^[[e\tf\ng"');
    expect(out).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/);
  });

  it('on a terminal, characters that reorder or hide text are shown; a pipe gets them as sent', () => {
    expect(csvField('abc\u202edef', true)).toBe('abc<U+202E>def');
    expect(csvField('abc\u202edef')).toBe('abc\u202edef');
  });
});

describe('--bom', () => {
  it('writes the bytes EF BB BF by which Excel reads a CSV file as UTF-8', async () => {
    const { CSV_BOM } = await import('../../src/output/csv.js');
    expect([...Buffer.from(CSV_BOM, 'utf8')]).toEqual([0xef, 0xbb, 0xbf]);
  });
});
