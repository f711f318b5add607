import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { GymctlError } from '../../src/api/errors.js';
import { formatErrorJson } from '../../src/output/errors.js';
import { escapeJsonForTerminal, sanitizeCell, sanitizeLine } from '../../src/output/sanitize.js';

const RAW_CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

const hostile: Array<[string, string]> = [
  ['CSI colour', '\u001b[31mred\u001b[0m'],
  ['CSI cursor movement and erase', 'a\u001b[2J\u001b[H\u001b[1Ab'],
  ['OSC title with BEL', '\u001b]0;pwned\u0007name'],
  ['OSC title with ESC \\ terminator', '\u001b]2;pwned\u001b\\name'],
  ['OSC 8 hyperlink with BEL', '\u001b]8;;https://evil.example\u0007click\u001b]8;;\u0007'],
  ['OSC 8 hyperlink with ESC \\', '\u001b]8;;https://evil.example\u001b\\click\u001b]8;;\u001b\\'],
  ['C1 CSI (U+009B)', '\u009b31mred'],
  ['C1 OSC (U+009D) and ST (U+009C)', '\u009d0;title\u009c'],
  ['DEL', 'a\u007fb'],
  ['NUL', 'a\u0000b'],
  ['BEL', 'a\u0007b'],
  ['backspace and carriage return', 'good\u0008\u0008\u0008\rbad'],
  [
    'every C0, DEL and C1 character',
    `${Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i)).join('')}\u007f${Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(0x80 + i)).join('')}`,
  ],
];

describe('sanitizeLine', () => {
  it.each(hostile)('leaves no raw control character: %s', (_name, input) => {
    expect(sanitizeLine(input)).not.toMatch(RAW_CONTROL);
  });

  it('shows ESC as ^[ and keeps the rest of a CSI sequence as text', () => {
    expect(sanitizeLine('\u001b[31mred\u001b[0m')).toBe('^[[31mred^[[0m');
  });

  it('shows an OSC title sequence with BEL visibly', () => {
    expect(sanitizeLine('\u001b]0;pwned\u0007name')).toBe('^[]0;pwned^Gname');
  });

  it('shows an OSC title sequence with ESC \\ terminator visibly', () => {
    expect(sanitizeLine('\u001b]2;pwned\u001b\\name')).toBe('^[]2;pwned^[\\name');
  });

  it('shows OSC 8 hyperlinks visibly, with either terminator', () => {
    expect(sanitizeLine('\u001b]8;;https://evil.example\u0007click\u001b]8;;\u0007')).toBe('^[]8;;https://evil.example^Gclick^[]8;;^G');
    expect(sanitizeLine('\u001b]8;;https://evil.example\u001b\\click\u001b]8;;\u001b\\')).toBe('^[]8;;https://evil.example^[\\click^[]8;;^[\\');
  });

  it('shows C1 controls as the ESC form they stand for', () => {
    expect(sanitizeLine('\u009b31mred')).toBe('^[[31mred');
    expect(sanitizeLine('\u009d0;t\u009c')).toBe('^[]0;t^[\\');
    expect(sanitizeLine('\u0080')).toBe('^[@');
    expect(sanitizeLine('\u009f')).toBe('^[_');
  });

  it('shows DEL, NUL and BEL in caret notation', () => {
    expect(sanitizeLine('a\u007fb')).toBe('a^?b');
    expect(sanitizeLine('a\u0000b')).toBe('a^@b');
    expect(sanitizeLine('a\u0007b')).toBe('a^Gb');
  });

  it('shows tab, newline and carriage return visibly on a single line', () => {
    expect(sanitizeLine('a\tb\nc\rd')).toBe('a^Ib^Jc^Md');
  });

  it.each([
    ['plain ASCII', 'Alfama Jiu-Jitsu, Lisboa (PT) #1 ~ ^ [brackets] {braces} \\ /'],
    ['accents', 'José Müller, Rua dos Remédios, São Paulo, Ñandú'],
    ['CJK', '渋谷柔道道場 東京都'],
    ['emoji', '🥋 Team 👨‍👩‍👧 🇧🇷'],
    ['other scripts', 'Ελληνικά русский עברית العربية'],
    ['characters just above C1', '\u00a0\u00a9\u00ff'],
    ['empty string', ''],
  ])('leaves %s unchanged', (_name, text) => {
    expect(sanitizeLine(text)).toBe(text);
    expect(sanitizeCell(text)).toBe(text);
  });
});

describe('sanitizeCell', () => {
  it('turns tab, newline, CR and CRLF into single spaces', () => {
    expect(sanitizeCell('a\tb')).toBe('a b');
    expect(sanitizeCell('a\nb')).toBe('a b');
    expect(sanitizeCell('a\rb')).toBe('a b');
    expect(sanitizeCell('a\r\nb')).toBe('a b');
    expect(sanitizeCell('line1\r\nline2\nline3\tend')).toBe('line1 line2 line3 end');
  });

  it('contains no tab or newline in the output', () => {
    expect(sanitizeCell('\t\n\r\n\r')).not.toMatch(/[\t\n\r]/);
  });

  it.each(hostile)('leaves no raw control character: %s', (_name, input) => {
    expect(sanitizeCell(input)).not.toMatch(RAW_CONTROL);
  });

  it('shows other control characters visibly', () => {
    expect(sanitizeCell('\u001b[31mred\u001b[0m')).toBe('^[[31mred^[[0m');
    expect(sanitizeCell('\u009b2J')).toBe('^[[2J');
    expect(sanitizeCell('a\u0000b\u007fc\u0007d')).toBe('a^@b^?c^Gd');
    expect(sanitizeCell('\u001b]8;;https://x.example\u001b\\x\u001b]8;;\u001b\\')).toBe('^[]8;;https://x.example^[\\x^[]8;;^[\\');
  });
});

describe('text that reorders or hides itself', () => {
  it('shows bidi overrides and isolates, zero-width spaces and BOMs as code points', () => {
    expect(sanitizeLine('admin\u202egnp.exe')).toBe('admin<U+202E>gnp.exe');
    expect(sanitizeCell('a\u2066b\u2069c\u200bd\ufeff')).toBe('a<U+2066>b<U+2069>c<U+200B>d<U+FEFF>');
  });
});

describe('characters that reorder, break or hide text', () => {
  it.each([
    ['\u200e', '<U+200E>'],
    ['\u200f', '<U+200F>'],
    ['\u061c', '<U+061C>'],
    ['\u2028', '<U+2028>'],
    ['\u2029', '<U+2029>'],
    ['\u00ad', '<U+00AD>'],
    ['\u3164', '<U+3164>'],
    ['\u180e', '<U+180E>'],
    ['\u{e0001}', '<U+E0001>'],
    ['\u{e0041}', '<U+E0041>'],
    ['\u{e007f}', '<U+E007F>'],
  ])('%j is shown as %s', (char, shown) => {
    expect(sanitizeLine(`a${char}b`)).toBe(`a${shown}b`);
    expect(sanitizeCell(`a${char}b`)).toBe(`a${shown}b`);
  });

  it('keeps what emoji and scripts need: joiners and variation selectors', () => {
    for (const text of ['👩‍👩‍👧', '❤️', 'क्‍ष', 'Zoë', '東京']) expect(sanitizeLine(text)).toBe(text);
  });
});

describe('escapeJsonForTerminal', () => {
  it('writes DEL, C1 controls and characters that reorder or hide text as \\u escapes: the same JSON value, safe to print', () => {
    const value = { name: 'a\u007fb\u0085c\u009bd\u202ee\u200bf\u{e0041}g', plain: 'José 🥋' };
    const json = escapeJsonForTerminal(JSON.stringify(value));
    expect(json).toBe('{"name":"a\\u007fb\\u0085c\\u009bd\\u202ee\\u200bf\\udb40\\udc41g","plain":"José 🥋"}');
    expect(JSON.parse(json)).toEqual(value);
  });
});

describe('property: nothing that controls, reorders or hides text reaches a terminal', () => {
  const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\u3164\ufeff]|\udb40[\udc00-\udc7f]/u;
  it('for any text, sanitizeLine and sanitizeCell leave none of them', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(sanitizeLine(text)).not.toMatch(UNSAFE);
        expect(sanitizeCell(text)).not.toMatch(UNSAFE);
      }),
      { numRuns: 3000 },
    );
  });

  it('for any text, a JSON error line parses back to the same message and holds none of them raw', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (message) => {
        const line = formatErrorJson(new GymctlError('not_found', message)).slice(0, -1);
        expect(line).not.toMatch(UNSAFE);
        expect((JSON.parse(line) as { error: { message: string } }).error.message).toBe(message);
      }),
      { numRuns: 3000 },
    );
  });
});
