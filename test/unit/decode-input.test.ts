/**
 * What stdin holds, as text (src/terminal/decode.ts): UTF-8, with a
 * byte-order mark or not, and UTF-16 in either byte order with its mark, as
 * Windows PowerShell 5.1's `>` writes a file (UTF-16LE with FF FE). Without
 * a mark, UTF-16 is not guessed.
 */
import { describe, expect, it } from 'vitest';
import { parseIdList } from '../../src/commands/shared/ids.js';
import { decodeInput } from '../../src/terminal/decode.js';

const IDS = '1\r\n2\r\n# a comment: Remédios\r\n9223372036854775807\r\n';

const utf8 = (text: string) => Buffer.from(text, 'utf8');
const utf8Bom = (text: string) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8(text)]);
const utf16le = (text: string) => Buffer.from(text, 'utf16le');
const utf16leBom = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), utf16le(text)]);
const utf16beBom = (text: string) => Buffer.concat([Buffer.from([0xfe, 0xff]), utf16le(text).swap16()]);

describe('decodeInput', () => {
  it.each([
    ['UTF-8', utf8],
    ['UTF-8 with its byte-order mark', utf8Bom],
    ['UTF-16LE with its byte-order mark', utf16leBom],
    ['UTF-16BE with its byte-order mark', utf16beBom],
  ])('reads %s as the text it holds, the mark left out', (_name, encode) => {
    expect(decodeInput(encode(IDS))).toBe(IDS);
    expect(parseIdList(decodeInput(encode(IDS)))).toEqual([1, 2, 9223372036854775807n]);
  });

  it('reads characters beyond the BMP (surrogate pairs) in either byte order', () => {
    for (const encode of [utf16leBom, utf16beBom]) expect(decodeInput(encode('Zoë 🥋'))).toBe('Zoë 🥋');
  });

  it('takes nothing but the mark for one: an empty input, a mark alone, a mark that is not first', () => {
    expect(decodeInput(new Uint8Array())).toBe('');
    for (const mark of [
      [0xef, 0xbb, 0xbf],
      [0xff, 0xfe],
      [0xfe, 0xff],
    ])
      expect(decodeInput(Uint8Array.from(mark))).toBe('');
    // FF FE further on is no mark: in UTF-8, bytes that are no text, shown as U+FFFD.
    expect(decodeInput(Buffer.concat([utf8('1'), Buffer.from([0xff, 0xfe])]))).toBe('1\ufffd\ufffd');
    // Half a mark is not a mark either.
    expect(decodeInput(Buffer.from([0xff, 0x31]))).toBe('\ufffd1');
    expect(decodeInput(Buffer.from([0xfe, 0x31]))).toBe('\ufffd1');
    expect(decodeInput(Buffer.from([0x31, 0xfe]))).toBe('1\ufffd');
    expect(decodeInput(Buffer.from([0x31, 0xff]))).toBe('1\ufffd');
  });

  it('does not guess UTF-16 without its mark: the digits come with NULs, which no id holds', () => {
    expect(decodeInput(utf16le('1\r\n'))).toBe('1\u0000\r\u0000\n\u0000');
    expect(decodeInput(utf16le('1').swap16())).toBe('\u00001');
  });

  it('shows a last odd byte of UTF-16 as U+FFFD, never drops it', () => {
    expect(decodeInput(Buffer.concat([utf16leBom('12'), Buffer.from([0x33])]))).toBe('12\ufffd');
    expect(decodeInput(Buffer.concat([utf16beBom('12'), Buffer.from([0x00])]))).toBe('12\ufffd');
  });
});
