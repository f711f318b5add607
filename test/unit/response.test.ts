// Reading an answer's body and what it means (src/api/transport/response.ts), on answers made here: a body cut off
// mid-gzip, a body its server says is not encoded, and one nested past the guard.
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { operationFor } from '../../src/api/client.js';
import { GymApiError } from '../../src/api/errors.js';
import type { Exchange } from '../../src/api/transport/exchange.js';
import { interpret, readBody } from '../../src/api/transport/response.js';
import { MAX_JSON_DEPTH } from '../../src/json/exact.js';
import { academy } from '../../src/operations/index.js';

const operation = operationFor(academy, 7);

/** An answer with these headers, and this body; `cancelled` says whether the reading was stopped. */
function answer(headers: Record<string, string>, body: Exchange['body'], status = 200) {
  const state = { cancelled: false };
  const exchange: Exchange = {
    status,
    statusText: 'OK',
    headers: { get: (name) => headers[name.toLowerCase()] ?? null },
    body,
    cancel: () => {
      state.cancelled = true;
    },
  };
  return { exchange, state };
}

const BODY = JSON.stringify({ data: { id: 7, name: 'Alfama' } });

describe('reading a body', () => {
  it('a connection reset mid-gzip fails the call as a body that cannot be decoded, instead of hanging until the timeout', async () => {
    const gzipped = gzipSync(Buffer.from(BODY.repeat(50)));
    const source = new Readable({ read() {} });
    source.on('error', () => {}); // as the sender's own listener does
    const { exchange, state } = answer({ 'content-encoding': 'gzip' }, source);
    let error: unknown;
    let settled = false;
    readBody(exchange, 1 << 20, operation).then(
      () => {
        settled = true;
      },
      (e: unknown) => {
        error = e;
        settled = true;
      },
    );
    source.push(gzipped.subarray(0, 20));
    source.destroy(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    await new Promise((resolve) => source.on('close', resolve));
    // Settled within a few turns of the event loop once the socket is gone: never left to a timeout.
    for (let turn = 0; turn < 50 && !settled; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(true);
    expect(error).toBeInstanceOf(GymApiError);
    expect((error as GymApiError).message).toBe('academy 7: the gzip body cannot be decoded (ECONNRESET)');
    expect(state.cancelled).toBe(true);
  });

  it('a body the server says is sent with Content-Encoding: identity is read as it is', async () => {
    for (const coding of ['identity', ' Identity ', '']) {
      const { exchange } = answer({ 'content-encoding': coding }, Readable.from([Buffer.from(BODY)]));
      expect((await readBody(exchange, 1 << 20, operation)).toString(), coding).toBe(BODY);
    }
  });

  it('a gzip, deflate or br body is decoded; an unknown coding is refused, naming it', async () => {
    const zlib = await import('node:zlib');
    const encoded = { gzip: zlib.gzipSync(BODY), 'x-gzip': zlib.gzipSync(BODY), deflate: zlib.deflateSync(BODY), br: zlib.brotliCompressSync(BODY) };
    for (const [coding, bytes] of Object.entries(encoded)) {
      const { exchange } = answer({ 'content-encoding': coding }, Readable.from([bytes]));
      expect((await readBody(exchange, 1 << 20, operation)).toString(), coding).toBe(BODY);
    }
    const { exchange } = answer({ 'content-encoding': 'zstd' }, Readable.from([Buffer.from(BODY)]));
    await expect(readBody(exchange, 1 << 20, operation)).rejects.toThrow('academy 7: the response has a content coding gymctl cannot decode (zstd)');
  });
});

describe('what an answer means', () => {
  it(`an answer nested deeper than ${MAX_JSON_DEPTH} levels is refused as such, before it is parsed`, () => {
    const deep = `{"data":${'['.repeat(MAX_JSON_DEPTH + 10)}${']'.repeat(MAX_JSON_DEPTH + 10)}}`;
    const { exchange } = answer({ 'content-type': 'application/json' }, null);
    expect(() => interpret(exchange, deep, operation)).toThrow(`academy 7: the response nests deeper than ${MAX_JSON_DEPTH} levels`);
  });
});
