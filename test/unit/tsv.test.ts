/** Tab-separated lines, what a table becomes in a pipe: one header row, a line a record, cells made safe. */
import { describe, expect, it } from 'vitest';
import type { CsvColumn } from '../../src/output/csv.js';
import { type Cell, type Column, cellText, tsvFieldHeader, tsvFieldRow, tsvHeader, tsvRow, tsvTable } from '../../src/output/tsv.js';

interface Row {
  id: number;
  name: string | null;
}

const columns: Column<Row>[] = [
  { key: 'id', label: 'ID', value: (row) => row.id },
  { key: 'name', label: 'Name', value: (row) => row.name },
];

describe('cellText', () => {
  it.each<[Cell, string]>([
    [null, ''],
    [undefined, ''],
    ['', ''],
    [0, '0'],
    [-5, '-5'],
    [false, 'false'],
    [12345678901234567890n, '12345678901234567890'],
    ['null', 'null'],
    ['a\tb\nc\r\nd', 'a b c d'],
    ['\u001b[31mred', '^[[31mred'],
    ['abc\u202edef', 'abc<U+202E>def'],
  ])('cell %s is %j', (cell, text) => {
    expect(cellText(cell)).toBe(text);
  });
});

describe('tsvTable', () => {
  it('writes the keys as the header row, then a line a record, tab-separated, every line ended', () => {
    const rows = [
      { id: 1, name: 'Alfama\tJiu-Jitsu' },
      { id: 2, name: null },
    ];
    expect(tsvHeader(columns)).toBe('id\tname\n');
    expect(tsvRow(columns, rows[0]!)).toBe('1\tAlfama Jiu-Jitsu\n');
    expect(tsvTable(columns, rows)).toBe('id\tname\n1\tAlfama Jiu-Jitsu\n2\t\n');
    expect(tsvTable(columns, rows, false)).toBe('1\tAlfama Jiu-Jitsu\n2\t\n');
    expect(tsvTable(columns, [])).toBe('id\tname\n');
    expect(tsvTable(columns, [], false)).toBe('');
  });
});

describe('tsvFieldRow', () => {
  const fields: CsvColumn[] = [
    { name: 'id', path: ['id'] },
    { name: 'address.city', path: ['address', 'city'] },
    { name: 'academyIds', path: ['academyIds'] },
  ];

  it('writes the dotted field names, then each record as CSV writes its fields, made safe', () => {
    expect(tsvFieldHeader(fields)).toBe('id\taddress.city\tacademyIds\n');
    expect(tsvFieldRow(fields, { id: 7, address: { city: 'São\nPaulo\u0007' }, academyIds: [1, 2] })).toBe('7\tSão Paulo^G\t1;2\n');
    expect(tsvFieldRow(fields, { id: 8, address: null })).toBe('8\t\t\n');
  });
});
