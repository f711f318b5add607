import { PassThrough, Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEmitter, FIRST_PART_MS, FIRST_PART_ROWS, PART_MS, PART_ROWS } from '../../src/output/emit.js';
import type { Academy, ApiKey, FamilyMember } from '../../src/operations/index.js';
import { createIO, decideColor, type IO } from '../../src/terminal/io.js';
import stringWidth from 'string-width';
import { drawBox, fitWidths, keepEnd, paint, renderCard, renderTable, streamWidths, yieldRank, type Column } from '../../src/output/table.js';
import { pickColumns } from '../../src/output/columns.js';
import { viewsOf } from '../../src/output/views.js';
import { formatAddress } from '../../src/operations/academy.js';
import { academy, family, whoami } from '../../src/operations/index.js';

const academyView = viewsOf(academy).one;
const academyColumns = academy.views.card;
const apiKeyColumns = whoami.views.card;
const familyColumns = family.views.card;
import { DEMO_DATA } from '../../src/sandbox/demo-data.js';
import { cellsOf } from '../helpers/tables.js';

const ESC = '\u001b';
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/; // all but \t and \n
const BOX = /[┌┐└┘│─┬┴┼]/;

class Sink extends Writable {
  text = '';
  isTTY?: boolean;
  columns?: number;
  constructor(isTTY: boolean) {
    super();
    if (isTTY) {
      this.isTTY = true;
      this.columns = 120;
    }
  }
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void) {
    this.text += chunk.toString();
    callback();
  }
}

function fakeIO(isTTY: boolean, env: NodeJS.ProcessEnv = {}, colorFlag?: boolean): IO & { stdout: Sink; stderr: Sink } {
  const io = createIO({ stdin: new PassThrough(), stdout: new Sink(isTTY), stderr: new Sink(isTTY) }, { env, ...(colorFlag === undefined ? {} : { colorFlag }) });
  return io as IO & { stdout: Sink; stderr: Sink };
}

const pipe = () => fakeIO(false);
const ttyPlain = () => fakeIO(true, { NO_COLOR: '1' });
const ttyColor = () => fakeIO(true, { FORCE_COLOR: '1' });

/** ESC sequences other than the bold/dim that the table itself adds. */
const stripOwnStyles = (text: string) => text.replace(/\u001b\[(1|2|22)m/g, '');

interface Row {
  id: number;
  name: string | null | undefined;
  note?: string | null;
}

const rowColumns: Column<Row>[] = [
  { key: 'id', label: 'ID', value: (r) => r.id },
  { key: 'name', label: 'Name', value: (r) => r.name },
  { key: 'note', label: 'Note', value: (r) => r.note },
];

const HOSTILE = '\u001b[31mred\u001b[0m \u001b]0;pwned\u0007 \u001b]8;;https://evil.example\u001b\\link\u001b]8;;\u001b\\ \u009b2J';

describe('the fake IO', () => {
  it('reports what the streams are', () => {
    expect(pipe()).toMatchObject({ stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false, color: false });
    expect(ttyPlain()).toMatchObject({ stdoutIsTTY: true, color: false });
    expect(ttyColor()).toMatchObject({ stdoutIsTTY: true, color: true });
  });

  it('writes through to the streams', () => {
    const io = pipe();
    io.out('result\n');
    io.err('warning\n');
    expect(io.stdout.text).toBe('result\n');
    expect(io.stderr.text).toBe('warning\n');
  });

  it('acts as a TTY when GYMCTL_FORCE_TTY is set', () => {
    const io = fakeIO(false, { GYMCTL_FORCE_TTY: '1' });
    expect(io.stdoutIsTTY).toBe(true);
    expect(io.stderrIsTTY).toBe(true);
  });
});

describe('renderTable when stdout is not a terminal', () => {
  const rows: Row[] = [
    { id: 1, name: 'Alfama Jiu-Jitsu', note: 'ok' },
    { id: 2, name: 'José 東京 🥋', note: 'fine' },
  ];

  it('gives tab-separated lines under one header row of column keys', () => {
    expect(renderTable(pipe(), rowColumns, rows)).toBe('id\tname\tnote\n1\tAlfama Jiu-Jitsu\tok\n2\tJosé 東京 🥋\tfine\n');
  });

  it('has no borders and no ANSI escapes', () => {
    const out = renderTable(pipe(), academyColumns, DEMO_DATA.academies);
    expect(out).not.toContain(ESC);
    expect(out).not.toMatch(BOX);
  });

  it('gives one line per record plus the header, each with one cell per column', () => {
    const out = renderTable(pipe(), academyColumns, DEMO_DATA.academies);
    const lines = out.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(DEMO_DATA.academies.length + 1);
    expect(lines[0]).toBe(academyColumns.map((c) => c.key).join('\t'));
    for (const line of lines) expect(line.split('\t')).toHaveLength(academyColumns.length);
  });

  it('gives only the header for no records', () => {
    expect(renderTable(pipe(), rowColumns, [])).toBe('id\tname\tnote\n');
  });

  it('replaces tabs and newlines inside values', () => {
    const out = renderTable(pipe(), rowColumns, [{ id: 1, name: 'a\tb\nc', note: 'd\r\ne\rf' }]);
    expect(out).toBe('id\tname\tnote\n1\ta b c\td e f\n');
  });

  it('renders null and absent values as empty', () => {
    const out = renderTable(pipe(), rowColumns, [
      { id: 1, name: null },
      { id: 2, name: undefined, note: null },
    ]);
    expect(out).toBe('id\tname\tnote\n1\t\t\n2\t\t\n');
  });

  it('renders false, 0 and empty strings as themselves', () => {
    const columns: Column<{ a: boolean; b: number; c: string }>[] = [
      { key: 'a', label: 'A', value: (r) => r.a },
      { key: 'b', label: 'B', value: (r) => r.b },
      { key: 'c', label: 'C', value: (r) => r.c },
    ];
    expect(renderTable(pipe(), columns, [{ a: false, b: 0, c: '' }])).toBe('a\tb\tc\nfalse\t0\t\n');
  });

  it('shows hostile server text visibly', () => {
    const out = renderTable(pipe(), rowColumns, [{ id: 1, name: HOSTILE }]);
    expect(out).not.toContain(ESC);
    expect(out).not.toContain('\u009b');
    expect(out).not.toContain('\u0007');
    expect(out).not.toMatch(RAW_CONTROL);
    expect(out).toContain('^[[31mred^[[0m');
    expect(out).toContain('^[]0;pwned^G');
    expect(out).toContain('^[]8;;https://evil.example^[\\link');
    expect(out).toContain('^[[2J');
  });

  it('ignores colour settings', () => {
    const io = fakeIO(false, { FORCE_COLOR: '1' });
    expect(io.color).toBe(true);
    const out = renderTable(io, rowColumns, [{ id: 1, name: null }]);
    expect(out).toBe('id\tname\tnote\n1\t\t\n');
  });
});

describe('renderTable on a terminal', () => {
  const rows: Row[] = [
    { id: 1, name: 'Alfama', note: null },
    { id: 22, name: 'Eastside', note: 'n' },
  ];

  it('without colour has box characters, labels and no ANSI escapes', () => {
    const out = renderTable(ttyPlain(), rowColumns, rows);
    expect(out).toMatch(BOX);
    expect(out).toContain('ID');
    expect(out).toContain('Name');
    expect(out).toContain('Eastside');
    expect(out).not.toContain(ESC);
    expect(out.endsWith('\n')).toBe(true);
  });

  it('without colour shows an empty value as a dash', () => {
    const out = renderTable(ttyPlain(), rowColumns, [{ id: 1, name: null }]);
    const row = out.split('\n').find((line) => line.includes(' 1 '))!;
    expect(row.split('│').map((s) => s.trim())).toEqual(['', '1', '-', '-', '']);
  });

  it('has no tabs', () => {
    expect(renderTable(ttyPlain(), rowColumns, [{ id: 1, name: 'a\tb' }])).not.toContain('\t');
  });

  it('with colour makes the header bold', () => {
    const out = renderTable(ttyColor(), rowColumns, rows);
    expect(out).toContain(`${ESC}[1mID${ESC}[22m`);
    expect(out).toMatch(BOX);
  });

  it('without colour shows hostile server text visibly', () => {
    const out = renderTable(ttyPlain(), rowColumns, [{ id: 1, name: HOSTILE }]);
    expect(out).not.toContain(ESC);
    expect(out).not.toMatch(RAW_CONTROL);
    expect(out).toContain('^[[31mred');
    expect(out).toContain('^[]0;pwned^G');
    expect(out).toContain('^[[2J');
  });

  it('with colour shows hostile server text visibly, adding no escapes but its own', () => {
    const out = renderTable(ttyColor(), rowColumns, [{ id: 1, name: HOSTILE }]);
    const rest = stripOwnStyles(out);
    expect(rest).not.toContain(ESC);
    expect(rest).not.toMatch(RAW_CONTROL);
    expect(out).not.toContain('\u009b');
    expect(out).toContain('^[[31mred');
    expect(out).toContain('^[]8;;https://evil.example^[\\link');
  });

  it('keeps a newline in a value from breaking the row', () => {
    const out = renderTable(ttyPlain(), rowColumns, [{ id: 1, name: 'two\nlines' }]);
    expect(out).toContain('two lines');
  });
});

describe('renderCard', () => {
  const academy = DEMO_DATA.academies[0]! as Academy;

  it('in a pipe gives one header row and one line', () => {
    const out = renderCard(pipe(), academyColumns, academy);
    const lines = out.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe(academyColumns.map((c) => c.key).join('\t'));
    expect(lines[1]!.split('\t')).toEqual([
      '1',
      'Alfama Jiu-Jitsu',
      'EUR',
      'ola@alfama-bjj.example.com',
      '+351213000001',
      'Rua dos Remédios 12, 1100-443 Lisboa, PT',
      '38.7118,-9.1299',
      '10',
      'https://images.example.com/academies/1/logo.png',
      '2019-03-04T09:30:00Z',
    ]);
    expect(out).not.toContain(ESC);
  });

  it('in a pipe renders nulls as empty', () => {
    const out = renderCard(pipe(), academyColumns, { id: 7, name: null, address: null, coordinates: null } as Academy);
    expect(out.split('\n')[1]).toBe(`7${'\t'.repeat(academyColumns.length - 1)}`);
  });

  it('on a terminal without colour has labels and values, no escapes', () => {
    const out = renderCard(ttyPlain(), academyColumns, academy);
    expect(out).toMatch(/^ID +1 *$/m);
    expect(out).toMatch(/^Name +Alfama Jiu-Jitsu *$/m);
    expect(out).not.toContain('\t');
    expect(out).not.toContain(ESC);
    expect(out.trimEnd().split('\n')).toHaveLength(academyColumns.length);
  });

  it('on a terminal with colour makes labels bold', () => {
    const out = renderCard(ttyColor(), academyColumns, academy);
    expect(out).toContain(`${ESC}[1mName${ESC}[22m`);
  });

  it('shows hostile server text visibly in both modes', () => {
    const record = { ...academy, name: HOSTILE, phone: 'a\nb' } as Academy;
    for (const io of [pipe(), ttyPlain(), ttyColor()]) {
      const out = renderCard(io, academyColumns, record);
      expect(stripOwnStyles(out)).not.toContain(ESC);
      expect(stripOwnStyles(out)).not.toMatch(RAW_CONTROL);
      expect(out).toContain('^[[31mred');
      expect(out).toContain('a b');
    }
  });
});

describe('views', () => {
  it('apiKeyColumns show the key, its academies and its owner', () => {
    const key = DEMO_DATA.keys[0]!.key as ApiKey;
    expect(renderCard(pipe(), apiKeyColumns, key)).toBe(
      'id\tname\tacademyIds\tuser.id\tuser.name\tuser.email\n101\tFront desk (demo)\t1,2,3,4\t9001\tRita Moreira\trita.moreira@example.com\n',
    );
  });

  it('apiKeyColumns cope with no owner and no academies', () => {
    expect(renderCard(pipe(), apiKeyColumns, { id: 5, academyIds: [] } as ApiKey)).toBe('id\tname\tacademyIds\tuser.id\tuser.name\tuser.email\n5\t\t\t\t\t\n');
  });

  it('familyColumns list members', () => {
    const members = DEMO_DATA.members.slice(0, 2) as FamilyMember[];
    expect(renderTable(pipe(), familyColumns, members)).toBe('id\tfirstName\tlastName\tacademyId\tprimaryFamilyMember\n501\tAna\tCosta\t1\ttrue\n502\tBruno\tCosta\t1\tfalse\n');
  });

  it('formatAddress joins the parts that are there', () => {
    expect(formatAddress(null)).toBe('');
    expect(formatAddress(undefined)).toBe('');
    expect(formatAddress({})).toBe('');
    expect(formatAddress({ line1: '1801 E 6th St', line2: 'Suite 200', city: 'Austin', state: 'TX', postalCode: '78702', country: 'US' })).toBe(
      '1801 E 6th St, Suite 200, 78702 Austin, TX, US',
    );
    expect(formatAddress({ line1: 'A', line2: null, city: 'B', state: '', postalCode: null, country: 'C' })).toBe('A, B, C');
  });

  it('coordinates show both parts, or what there is', () => {
    const coordinates = academyColumns.find((c) => c.key === 'coordinates')!;
    expect(coordinates.value({ id: 1, coordinates: { lat: 0, lng: -9.5 } } as Academy)).toBe('0,-9.5');
    expect(coordinates.value({ id: 1, coordinates: { lat: 1.5, lng: null } } as Academy)).toBe('1.5');
    expect(coordinates.value({ id: 1, coordinates: null } as Academy)).toBe('');
  });
});

describe('decideColor', () => {
  it('colours a terminal by default', () => {
    expect(decideColor(true, {})).toBe(true);
  });

  it('does not colour a pipe by default', () => {
    expect(decideColor(false, {})).toBe(false);
  });

  it('obeys --no-color, even over FORCE_COLOR', () => {
    expect(decideColor(true, {}, false)).toBe(false);
    expect(decideColor(true, { FORCE_COLOR: '1' }, false)).toBe(false);
  });

  it('obeys NO_COLOR with any non-empty value, even over FORCE_COLOR', () => {
    expect(decideColor(true, { NO_COLOR: '1' })).toBe(false);
    expect(decideColor(true, { NO_COLOR: '0' })).toBe(false);
    expect(decideColor(true, { NO_COLOR: '1', FORCE_COLOR: '1' })).toBe(false);
  });

  it('ignores an empty NO_COLOR', () => {
    expect(decideColor(true, { NO_COLOR: '' })).toBe(true);
  });

  it('FORCE_COLOR=1 colours a pipe', () => {
    expect(decideColor(false, { FORCE_COLOR: '1' })).toBe(true);
    expect(decideColor(false, { FORCE_COLOR: 'true' })).toBe(true);
  });

  it('FORCE_COLOR=0 or false turns colour off on a terminal', () => {
    expect(decideColor(true, { FORCE_COLOR: '0' })).toBe(false);
    expect(decideColor(true, { FORCE_COLOR: 'false' })).toBe(false);
  });

  it('an empty FORCE_COLOR changes nothing', () => {
    expect(decideColor(true, { FORCE_COLOR: '' })).toBe(true);
    expect(decideColor(false, { FORCE_COLOR: '' })).toBe(false);
  });

  it('TERM=dumb turns colour off on a terminal', () => {
    expect(decideColor(true, { TERM: 'dumb' })).toBe(false);
    expect(decideColor(true, { TERM: 'xterm-256color' })).toBe(true);
  });

  it('a Windows console colours: Windows Terminal and conhost take VT sequences and set no TERM, which is not "dumb"', () => {
    const platform = Object.getOwnPropertyDescriptor(process, 'platform')!;
    Object.defineProperty(process, 'platform', { value: 'win32' });
    try {
      // Windows Terminal (WT_SESSION), conhost under cmd.exe or PowerShell (nothing at all), both with no TERM.
      expect(decideColor(true, { WT_SESSION: '0f1e2d3c-0000-0000-0000-000000000000', ComSpec: 'C:\\Windows\\system32\\cmd.exe' })).toBe(true);
      expect(fakeIO(true, { PSModulePath: 'C:\\Program Files\\PowerShell\\Modules' }).color).toBe(true);
      // Redirected to a file, and NO_COLOR, as anywhere.
      expect(decideColor(false, {})).toBe(false);
      expect(decideColor(true, { NO_COLOR: '1' })).toBe(false);
    } finally {
      Object.defineProperty(process, 'platform', platform);
    }
  });

  it('createIO decides colour from stdout and the flag', () => {
    expect(fakeIO(true, {}).color).toBe(true);
    expect(fakeIO(true, {}, false).color).toBe(false);
    expect(fakeIO(false, {}).color).toBe(false);
    expect(fakeIO(true, { TERM: 'dumb' }).color).toBe(false);
  });
});

describe('cli-table3 draws the terminal tables', () => {
  /** The terminal column where each │ of a line stands: a grapheme at a time, measured as terminals measure (string-width). */
  const bars = (line: string) => {
    const at: number[] = [];
    let column = 0;
    for (const { segment: char } of new Intl.Segmenter('en', { granularity: 'grapheme' }).segment(line)) {
      if (char === '│' || char === '┼' || char === '┬' || char === '┴' || char === '├' || char === '┤' || char === '┌' || char === '┐' || char === '└' || char === '┘')
        at.push(column);
      column += stringWidth(char);
    }
    return at;
  };
  const WIDE: Row[] = [
    { id: 1, name: 'Café ☕ and 🀄', note: 'plain' },
    { id: 2, name: 'Thumbs 👍🏽 up', note: 'ok' },
    { id: 3, name: 'Family 👨‍👩‍👧 night', note: '東京の道場' },
    { id: 4, name: 'Jose\u0301 Nun\u0303ez', note: 'combining marks' },
    { id: 5, name: '서울 유도관', note: 'Ｆｕｌｌｗｉｄｔｈ' },
  ];

  it('emoji, CJK and combining marks line up at several terminal widths, never wider than the terminal', () => {
    for (const columns of [24, 32, 40, 60, 80, 120]) {
      const io = ttyPlain();
      io.stdout.columns = columns;
      const lines = renderTable(io, rowColumns, WIDE).trimEnd().split('\n');
      const first = bars(lines[0]!);
      for (const line of lines) {
        expect(bars(line), `${columns} columns: ${line}`).toEqual(first);
        expect(stringWidth(line)).toBeLessThanOrEqual(columns);
      }
    }
  });

  it('a wide character takes two columns: the box is drawn for it', () => {
    const out = renderTable(ttyPlain(), rowColumns, [
      { id: 1, name: '東京', note: '☕' },
      { id: 22, name: 'ab', note: 'x' },
    ]);
    expect(out).toBe(
      ['┌────┬──────┬──────┐', '│ ID │ Name │ Note │', '├────┼──────┼──────┤', '│ 1  │ 東京 │ ☕   │', '│ 22 │ ab   │ x    │', '└────┴──────┴──────┘', ''].join('\n'),
    );
  });

  it('without colour, a rule still sets the header row apart', () => {
    const lines = renderTable(ttyPlain(), rowColumns, [{ id: 1, name: 'a' }]).split('\n');
    expect(lines[2]).toMatch(/^├─+┼─+┼─+┤$/);
    const noHeaders = renderTable(ttyPlain(), rowColumns, [{ id: 1, name: 'a' }], false).split('\n');
    expect(noHeaders.filter((line) => line.startsWith('├'))).toEqual([]);
  });

  it('URLs and e-mail addresses give way before names and ids', () => {
    const io = ttyPlain();
    io.stdout.columns = 80;
    const columns = pickColumns(academyView, ['id', 'name', 'logoUrl', 'email']).table;
    const out = renderTable(io, columns, DEMO_DATA.academies as Academy[]);
    for (const line of out.trimEnd().split('\n')) expect(stringWidth(line)).toBeLessThanOrEqual(80);
    for (const academy of DEMO_DATA.academies) expect(out).toContain(`│ ${academy.name} `);
    expect(out).toContain('…');
    expect(out).not.toContain('https://images.example.com/academies/1/logo.png');
  });

  it('fitWidths: nothing is cut that fits, and a character goes where it cuts least', () => {
    const column = (cells: number[], label = 2, rank = 2) => ({ cells, label, rank });
    expect(fitWidths([column([10]), column([20])], 10, 100)).toEqual([10, 20]);
    expect(fitWidths([column([10]), column([20])], 10, undefined)).toEqual([10, 20]);
    // One long cell gives way before a column whose every cell is as wide.
    expect(fitWidths([column([20, 20, 20]), column([30, 3, 3])], 10, 50)).toEqual([20, 20]);
    // Then both: a cut that takes a share of what is shown alike from each cell.
    expect(fitWidths([column([20, 20]), column([30, 3])], 10, 35)).toEqual([17, 8]);
    // URLs and e-mail addresses give way more readily, names a little less than other text.
    expect(fitWidths([column([20]), column([20], 2, 3)], 0, 30)).toEqual([20, 10]);
    expect(fitWidths([column([20], 2, 1), column([20])], 0, 30)).toEqual([17, 13]);
    // Ids, and headers, only once nothing else can give way.
    expect(fitWidths([column([12], 2, 0), column([10], 8)], 0, 20)).toEqual([12, 8]);
    expect(fitWidths([column([12], 2, 0), column([10], 8)], 0, 19)).toEqual([12, 7]);
    expect(fitWidths([column([12], 2, 0), column([10], 8)], 0, 14)).toEqual([9, 5]);
    expect(fitWidths([column([12], 2, 0), column([10], 8)], 0, 4)).toEqual([2, 2]);
  });

  it("streamWidths: the terminal's room goes to the columns that may grow, the narrowest first; ids and codes keep their width", () => {
    const column = (cells: number[], label: number, rank = 2) => ({ cells, label, rank });
    // An id, a name, a city, a code narrower than its header: 4 columns' frame is 13.
    const academies = [column([2], 2, 0), column([10, 10], 4, 1), column([6], 4), column([2, 2], 7)];
    expect(streamWidths(academies, 13, 100)).toEqual([2, 39, 39, 7]);
    expect(streamWidths(academies, 13, 100).reduce((sum, w) => sum + w, 13)).toBe(100);
    // An odd character goes to the first of the narrowest; the id's known widest is its width.
    expect(streamWidths(academies, 13, 101, [6])).toEqual([6, 38, 37, 7]);
    // No room to spare: cut as fitWidths cuts, the id whole; no width known: each column's widest.
    expect(streamWidths(academies, 13, 30)).toEqual([2, 5, 5, 5]);
    expect(streamWidths(academies, 13, undefined)).toEqual([2, 10, 6, 7]);
    // Without a header row every column but the id may grow.
    expect(streamWidths([column([2], 0, 0), column([10], 0), column([2], 0)], 10, 40)).toEqual([2, 14, 14]);
  });

  it('yieldRank: URLs and e-mail addresses first, ids last', () => {
    expect(['logoUrl', 'user.email', 'thumbnail', 'status', 'address.line1', 'baseUrl', 'name', 'user.name', 'id', 'academyId', 'familyOf'].map(yieldRank)).toEqual([
      3, 3, 3, 3, 2, 1, 1, 1, 0, 0, 0,
    ]);
  });

  it('keepEnd: a base URL cut at its start keeps its host and port', () => {
    expect(keepEnd('http://127.0.0.1:4599', 30)).toBe('http://127.0.0.1:4599');
    expect(keepEnd('http://127.0.0.1:4599', 10)).toBe('….0.1:4599');
    expect(stringWidth(keepEnd('https://例え.jp:4599', 8))).toBeLessThanOrEqual(8);
  });

  it('academies at 60 columns: the longest names give way, every header stays whole', () => {
    const io = ttyPlain();
    io.stdout.columns = 60;
    const out = renderTable(io, viewsOf(academy).many.list, DEMO_DATA.academies as Academy[]);
    const lines = out.trimEnd().split('\n');
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(60);

    expect(cellsOf(lines[1]!)).toEqual(['ID', 'Name', 'City', 'Country', 'Currency']);
    const rows = lines.slice(3, -1).map(cellsOf);
    expect(rows.map((row) => row[4])).toEqual(DEMO_DATA.academies.map((a) => a.currency));
    expect(rows.map((row) => row[3])).toEqual(DEMO_DATA.academies.map((a) => a.address?.country));
    // Names give way, the longest first: every name cut is longer than every name shown whole.
    const names = DEMO_DATA.academies.map((a) => a.name!);
    const cut = names.filter((_, i) => rows[i]![1]!.endsWith('…'));
    const whole = names.filter((name, i) => rows[i]![1] === name);
    expect(cut.length).toBeGreaterThan(0);
    expect(cut.length + whole.length).toBe(names.length);
    expect(Math.min(...cut.map((name) => name.length))).toBeGreaterThan(Math.max(...whole.map((name) => name.length)));
  });

  it('a table drawn in chunks is the table drawn in one piece', () => {
    const rows: Row[] = Array.from({ length: 23 }, (_, i) => ({ id: i, name: i % 4 ? `Name ${i} 東京` : null, note: 'x'.repeat(i) }));
    for (const io of [ttyPlain(), ttyColor()]) {
      io.stdout.columns = 40;
      for (const headers of [true, false]) {
        const whole = renderTable(io, rowColumns, rows, headers, Number.POSITIVE_INFINITY);
        for (const chunk of [1, 3, 7, 22, 23]) expect(renderTable(io, rowColumns, rows, headers, chunk)).toBe(whole);
      }
    }
    expect(drawBox([2], ['ID'], [['1'], ['2']], 1)).toBe(drawBox([2], ['ID'], [['1'], ['2']]));
  });
});

describe('chalk colours what the terminal gets, at the level gymctl decided', () => {
  const row = [{ id: 1, name: null, note: 'n' }];
  it('colour: bold header, dim empty cells', () => {
    const out = renderTable(ttyColor(), rowColumns, row);
    expect(out).toContain(`${ESC}[1mID${ESC}[22m`);
    expect(out).toContain(`${ESC}[2m-${ESC}[22m`);
  });

  it('NO_COLOR, --no-color and TERM=dumb on a terminal: no escape at all', () => {
    for (const io of [fakeIO(true, { NO_COLOR: '1' }), fakeIO(true, {}, false), fakeIO(true, { TERM: 'dumb' })]) {
      expect(renderTable(io, rowColumns, row)).not.toContain(ESC);
      expect(renderCard(io, rowColumns, row[0]!)).not.toContain(ESC);
    }
  });

  it('FORCE_COLOR on a terminal that says it is dumb: colour', () => {
    expect(renderTable(fakeIO(true, { TERM: 'dumb', FORCE_COLOR: '1' }), rowColumns, row)).toContain(`${ESC}[1m`);
  });

  it('a pipe: no colour, even with FORCE_COLOR', () => {
    expect(renderTable(fakeIO(false, { FORCE_COLOR: '3' }), rowColumns, row)).toBe('id\tname\tnote\n1\t\tn\n');
  });

  it('chalk is given its level: nothing it works out for itself', () => {
    expect(paint(true).level).toBe(1);
    expect(paint(false).level).toBe(0);
    expect(paint(false).bold('x')).toBe('x');
  });
});

describe('a table written in parts, as a batch arrives', () => {
  afterEach(() => {
    vi.useRealTimers();
  });
  const academies = DEMO_DATA.academies as Academy[];
  const item = (data: Academy) => ({ data, raw: JSON.stringify(data) });
  const view = viewsOf(academy).many;

  it(`the first part is drawn after ${FIRST_PART_ROWS} rows or ${FIRST_PART_MS} ms, whichever comes first; later parts keep its widths; the parts make one box`, async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const io = ttyPlain();
    io.stdout.columns = 80;
    const emitter = await createEmitter(io, { format: 'table', headers: true }, view, 'many');
    for (const a of academies.slice(0, 3)) emitter.write(item(a));
    vi.advanceTimersByTime(FIRST_PART_MS - 1);
    expect(io.stdout.text).toBe('');
    vi.advanceTimersByTime(1);
    const first = io.stdout.text;
    expect(first.split('\n').filter((line) => line.startsWith('│'))).toHaveLength(4);
    expect(first).toMatch(/^┌/);
    expect(first).not.toContain('└');
    // A later name longer than its column is cut to the first part's widths.
    emitter.write(item({ ...academies[0]!, id: 7, name: 'A much longer academy name than any before it' }));
    vi.advanceTimersByTime(PART_MS);
    expect(io.stdout.text).toContain('│ 7  │ A much');
    expect(io.stdout.text).toContain('…');
    // A full part is drawn at once.
    for (let i = 0; i < PART_ROWS; i++) emitter.write(item(academies[i % 3]!));
    const rowsNow = io.stdout.text.split('\n').filter((line) => /^│ \d/.test(line)).length;
    expect(rowsNow).toBe(4 + PART_ROWS);
    await emitter.end(false);
    const lines = io.stdout.text.trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(/^└─+┴/);
    for (const line of lines) expect(stringWidth(line)).toBe(stringWidth(lines[0]!));
    expect(lines.filter((line) => line.startsWith('├'))).toHaveLength(1);
  });

  it(`${FIRST_PART_ROWS} rows draw the first part at once; a table whole before then is drawn in one piece, as renderTable draws it`, async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const io = ttyPlain();
    const emitter = await createEmitter(io, { format: 'table', headers: true }, view, 'many');
    for (let i = 0; i < FIRST_PART_ROWS; i++) emitter.write(item(academies[i % academies.length]!));
    expect(io.stdout.text.split('\n').filter((line) => /^│ \d/.test(line))).toHaveLength(FIRST_PART_ROWS);
    await emitter.end(false);
    const short = ttyPlain();
    const whole = await createEmitter(short, { format: 'table', headers: true }, view, 'many');
    for (const a of academies) whole.write(item(a));
    await whole.end(false);
    expect(short.stdout.text).toBe(renderTable(ttyPlain(), view.list, academies));
  });

  it('stop (Ctrl-C) draws what is held and closes the box', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const io = ttyPlain();
    const emitter = await createEmitter(io, { format: 'table', headers: true }, view, 'many');
    for (const a of academies) emitter.write(item(a));
    vi.advanceTimersByTime(FIRST_PART_MS);
    emitter.write(item(academies[0]!));
    emitter.stop!();
    const lines = io.stdout.text.trimEnd().split('\n');
    expect(lines.filter((line) => /^│ \d/.test(line))).toHaveLength(academies.length + 1);
    expect(lines.at(-1)).toMatch(/^└/);
  });

  it('accessible: aligned columns in parts, the widths of the first part', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const io = ttyPlain();
    io.accessible = true;
    const emitter = await createEmitter(io, { format: 'table', headers: true }, view, 'many');
    for (const a of academies) emitter.write(item(a));
    vi.advanceTimersByTime(FIRST_PART_MS);
    const first = io.stdout.text;
    expect(first.split('\n')[0]).toMatch(/^ID {2}Name +City/);
    emitter.write(item(academies[1]!));
    await emitter.end(false);
    expect(io.stdout.text.startsWith(first)).toBe(true);
    const added = io.stdout.text.slice(first.length).trimEnd();
    expect(added).toBe(first.split('\n')[2]!.trimEnd());
    expect(io.stdout.text).not.toMatch(BOX);
  });
});
