/** What the transport asks of Node. The web build takes `platform.web.ts` instead (build/index.mjs). */
import type { PeerCertificate } from 'node:tls';
import { hostOptions } from './network.js';
import type { Exchange, NodeStream } from './exchange.js';

/** A stream's chunks, read with events (cheaper than an async iterator), refused past `maxBytes`. */
function collect(stream: NodeStream, maxBytes: number, tooLarge: () => Error): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    stream.on('data', (data: Uint8Array) => {
      const chunk = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
      total += chunk.length;
      if (total <= maxBytes) chunks.push(chunk);
      else {
        stream.destroy();
        reject(tooLarge());
      }
    });
    stream.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total)));
    stream.on('error', reject);
  });
}

/** The body's bytes decoded from `coding` ('' or identity for none), refused past `maxBytes`; none for a coding it cannot decode. */
export function bodyBytes(body: NonNullable<Exchange['body']>, coding: string, maxBytes: number, tooLarge: () => Error): Promise<Uint8Array> | undefined {
  const source = 'pipe' in body ? body : (process.getBuiltinModule('node:stream').Readable.from(body) as NodeStream);
  if (coding === '' || coding === 'identity') return collect(source, maxBytes, tooLarge);
  const zlib = process.getBuiltinModule('node:zlib');
  const decoder =
    coding === 'gzip' || coding === 'x-gzip' ? zlib.createGunzip() : coding === 'deflate' ? zlib.createInflate() : coding === 'br' ? zlib.createBrotliDecompress() : undefined;
  if (!decoder) return undefined;
  source.on('error', (error: Error) => decoder.destroy(error));
  // The decoder needs no closing here: it destroys itself once it ends or fails, and collect destroys it past the cap.
  return collect(source.pipe(decoder), maxBytes, tooLarge);
}

/** A timer that keeps no process alive. */
export const backgroundTimer = (run: () => void, ms: number) => setTimeout(run, ms).unref();

/** Something read off the server's certificate by a handshake that sends nothing (never the key), within 2 s. */
export async function peerCertificate<T>(url: URL, read: (certificate: PeerCertificate) => T): Promise<T | undefined> {
  const tls = process.getBuiltinModule('node:tls');
  return new Promise((resolve) => {
    const socket = tls.connect({ ...hostOptions(url), port: Number(url.port || 443), rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] });
    const done = (value: T | undefined) => {
      socket.destroy();
      resolve(value);
    };
    socket.setTimeout(2000, () => done(undefined));
    socket.once('secureConnect', () => done(read(socket.getPeerCertificate())));
    socket.once('error', () => done(undefined));
  });
}
