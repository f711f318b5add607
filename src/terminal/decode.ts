/**
 * Stdin decoded by its byte-order mark, as Windows tools write it (PowerShell 5.1's `>` writes UTF-16LE); without one,
 * UTF-8: UTF-16 is never guessed, as its digits are valid UTF-8 too.
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
