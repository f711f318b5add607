import { describe, expect, it } from 'vitest';
import { academySchema, apiKeySchema, familyMemberSchema } from '../../src/api/public.js';
import { csvColumns, csvField, csvHeader, csvRow } from '../../src/output/csv.js';

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
  const columns = csvColumns(academySchema);
  it('gives every column a field, empty where the record has nothing, whatever the record holds', () => {
    const row = csvRow(columns, { id: 3, name: 'No address', address: null, extra: 'dropped' });
    expect(row).toBe(`3,No address${','.repeat(columns.length - 2)}\r\n`);
    expect(csvHeader(columns).split(',')).toHaveLength(columns.length);
  });
  it('writes numbers, booleans and lists as text', () => {
    const keyColumns = csvColumns(apiKeySchema);
    expect(csvRow(keyColumns, { id: 1, name: 'k', academyIds: [1, 2, 3], user: { id: 9, name: 'A, B', email: null } })).toBe('1,k,1;2;3,9,"A, B",\r\n');
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
  ])('neutralises %j', (value, cell) => {
    expect(csvField(value)).toBe(cell);
  });

  it.each(['-33.86', '38.7118', '+351 21 300 0001', '+15125550142', '+1 (512) 555-0142', '1e3', 'Ana', "O'Brien", '2019-03-04T09:30:00Z'])('leaves %j as it is', (value) => {
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
