/**
 * The frame of a code cache file (code-cache.ts): what V8 made, signed with
 * a key made from the user's secret (secret.ts), and the check that gives
 * it back only when the frame is whole and the signature agrees. No I/O;
 * node:crypto is loaded only once the frame's cheap checks have passed.
 */
/** The label the code cache's key is made with from the secret. */
const KEY_LABEL = 'gymctl code cache signing key, format 2';

/** The code cache's key, made from the secret. */
export const signingKey = (secret: Buffer): Buffer => process.getBuiltinModule('node:crypto').createHmac('sha256', secret).update(KEY_LABEL).digest();

/**
 * The file's frame: a magic, the format, the length of what V8 made, and
 * its signature; then what V8 made. 48 bytes, so that what V8 made starts
 * 8-byte aligned in the buffer read, as V8 takes it without a copy.
 */
const MAGIC = Buffer.from('gymctlV8');
/** Format 1 had a 32-bit checksum where the length is now: its files are not taken, and are rewritten. */
const FORMAT = 2;
const SIGNATURE_BYTES = 32;
const HEAD = MAGIC.length + 8;
const HEADER = HEAD + SIGNATURE_BYTES;

/** HMAC-SHA256 with the key made from the secret, over the magic, format and length, the file's name (a file is good under its own name only), and what V8 made. */
function signature(head: Buffer, name: string, data: Uint8Array, secret: Buffer): Buffer {
  return process.getBuiltinModule('node:crypto').createHmac('sha256', signingKey(secret)).update(head).update(`${name}\u0000`).update(data).digest();
}

/** The file's bytes for what V8 made, signed for the file `name`. */
export function frame(data: Buffer, name: string, secret: Buffer): Buffer {
  const head = Buffer.alloc(HEAD);
  MAGIC.copy(head);
  head.writeUInt32LE(FORMAT, MAGIC.length);
  head.writeUInt32LE(data.length, MAGIC.length + 4);
  return Buffer.concat([head, signature(head, name, data, secret), data]);
}

/** What V8 made, from the bytes of the file `name`; undefined unless the frame is whole and the signature agrees. */
export function unframe(bytes: Buffer, name: string, secret: Buffer): Buffer | undefined {
  // What is cheap first: a file of another format, or cut short, loads no crypto.
  if (bytes.length < HEADER || !bytes.subarray(0, MAGIC.length).equals(MAGIC) || bytes.readUInt32LE(MAGIC.length) !== FORMAT) return undefined;
  const data = bytes.subarray(HEADER);
  if (bytes.readUInt32LE(MAGIC.length + 4) !== data.length) return undefined;
  const expected = signature(bytes.subarray(0, HEAD), name, data, secret);
  return process.getBuiltinModule('node:crypto').timingSafeEqual(expected, bytes.subarray(HEAD, HEADER)) ? data : undefined;
}
