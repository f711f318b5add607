/**
 * Text handed to gymctl on stdin (ids, a key), decoded by its byte-order
 * mark, as Windows tools write it: UTF-16LE with `FF FE` (Windows PowerShell
 * 5.1's `>` and `Out-File`, Notepad's "Unicode"), UTF-16BE with `FE FF`, and
 * UTF-8 with `EF BB BF` or without a mark. The mark is not part of the text.
 * Without one the text is UTF-8: UTF-16 is never guessed (digits in UTF-16
 * are also valid UTF-8, holding NULs), so what is not UTF-8 shows as U+FFFD
 * and is refused where it is read, as before.
 */

/** UTF-16BE as UTF-16LE: each pair of bytes swapped (a last odd byte stays, and decodes as U+FFFD). */
function swapPairs(bytes: Uint8Array): Uint8Array {
  const even = bytes.length - (bytes.length % 2);
  return Buffer.concat([Buffer.from(bytes.subarray(0, even)).swap16(), bytes.subarray(even)]);
}

export function decodeInput(bytes: Uint8Array): string {
  // TextDecoder drops the mark at the start of what it decodes (its ignoreBOM is false), and writes what it cannot read
  // as U+FFFD. Made on each call, never at load: the single executable's start-up snapshot holds no decoder.
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16le').decode(swapPairs(bytes));
  return new TextDecoder('utf-8').decode(bytes);
}
