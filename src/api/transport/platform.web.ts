/** platform.ts for the web build: no Node module, `process` or `Buffer`. Nothing runs as it loads: senders.web.ts finds what a runtime lacks. */
import type { Exchange } from './exchange.js';

/** The body's bytes, refused past `maxBytes`; fetch has decoded them already, so any other coding is none it can decode. */
export function bodyBytes(body: NonNullable<Exchange['body']>, coding: string, maxBytes: number, tooLarge: () => Error): Promise<Uint8Array> | undefined {
  return coding === '' || coding === 'identity' ? collect(body as ReadableStream<Uint8Array<ArrayBuffer>>, maxBytes, tooLarge) : undefined;
}

async function collect(body: ReadableStream<Uint8Array<ArrayBuffer>>, maxBytes: number, tooLarge: () => Error): Promise<Uint8Array> {
  const reader = body.getReader();
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  let total = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    total += read.value.byteLength;
    if (total > maxBytes) {
      reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(read.value);
  }
  return chunks.length === 1 ? chunks[0]! : new Uint8Array(await new Blob(chunks).arrayBuffer());
}

let decoder: TextDecoder | undefined;

/** UTF-8 text of the bytes, a byte order mark kept (as Node's Buffer keeps it), an invalid sequence as U+FFFD. */
export function utf8(bytes: Uint8Array): string {
  decoder ??= new TextDecoder('utf-8', { ignoreBOM: true });
  return decoder.decode(bytes);
}

/** Whether `text` is the bytes as they are: they were valid UTF-8. */
export function isUtf8Of(text: string, bytes: Uint8Array): boolean {
  const encoded = new TextEncoder().encode(text);
  return encoded.length === bytes.length && encoded.every((byte, i) => byte === bytes[i]);
}

export const backgroundTimer = (run: () => void, ms: number) => setTimeout(run, ms);

/** No socket to look through: a certificate's details stay unread. */
export const peerCertificate = async <T>(_url: URL, _read: (certificate: never) => T): Promise<T | undefined> => undefined;
