/**
 * A batch's fast path (Transport.getWith): the first attempt made of
 * callbacks over node:http, and everything but a good answer handed to the
 * promise path with that attempt counted as its first. Against a real
 * server on loopback, with the connection's callback sender watched.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createClient, operations } from '../../src/api/client.js';
import type { GymctlError } from '../../src/api/errors.js';
import * as senders from '../../src/api/transport/senders.js';
import type { ApiResponse } from '../../src/api/transport/types.js';
import { runBatch } from '../../src/commands/shared/batch.js';
import { DEMO_DATA } from '../../src/sandbox/demo-data.js';

const KEY = 'test_key_0123456789abcdef';
const academy = DEMO_DATA.academies[0]!;

/** What the server answers next for each path (then 200 with the academy). */
let script: Record<string, number[]> = {};
let requests: string[] = [];
let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    requests.push(request.url!);
    const status = script[request.url!]?.shift() ?? 200;
    response.setHeader('content-type', 'application/json');
    response.setHeader('x-correlation-id', `c-${requests.length}`);
    if (status === 200) response.end(JSON.stringify({ data: { ...academy, id: Number(request.url!.split('/').pop()) } }));
    else response.writeHead(status).end(JSON.stringify({ message: `status ${status}`, correlationId: `c-${requests.length}` }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
afterEach(() => {
  script = {};
  requests = [];
  vi.restoreAllMocks();
});

/** A client whose connection's callback sender is counted. */
function watchedClient(retries = 2) {
  const fastSends: string[] = [];
  const open = senders.openConnection;
  vi.spyOn(senders, 'openConnection').mockImplementation(async (options) => {
    const connection = await open(options);
    const sendWith = connection.sendWith!;
    return {
      ...connection,
      sendWith: (path, headers, control, done) => {
        fastSends.push(path);
        sendWith(path, headers, control, done);
      },
    };
  });
  const client = createClient({ baseUrl: base, apiKey: KEY, retries, retryBaseDelayMs: 1 });
  return { client, fastSends };
}

const viaCallback = <T>(client: ReturnType<typeof createClient>, id: number, op = operations.academy) =>
  new Promise<{ error?: unknown; response?: ApiResponse<T> }>((resolve) =>
    client.requestWith(op(id) as never, undefined, (error, response) => resolve({ error, response: response as ApiResponse<T> | undefined })),
  );

describe('the callback path', () => {
  it('gives what the promise path gives, and is taken once the connection is open', async () => {
    const { client, fastSends } = watchedClient();
    const viaPromise = await client.request(operations.academy(1));
    const { error, response } = await viaCallback(client, 1);
    expect(error).toBeUndefined();
    expect({ ...response, correlationId: undefined }).toEqual({ ...viaPromise, correlationId: undefined });
    expect(response!.correlationId).toBe('c-2');
    expect(fastSends).toEqual(['/academies/1']);
    await client.close();
  });

  it('a retryable status goes on as get would, its first attempt counted: 503 then 200 is two requests', async () => {
    const { client, fastSends } = watchedClient();
    await client.request(operations.academy(9));
    requests = [];
    script['/academies/2'] = [503];
    const { error, response } = await viaCallback(client, 2);
    expect(error).toBeUndefined();
    expect((response!.data as { id: number }).id).toBe(2);
    expect(requests).toEqual(['/academies/2', '/academies/2']);
    expect(fastSends).toEqual(['/academies/2']);
    await client.close();
  });

  it('retries run out after as many attempts as on the promise path, and say so', async () => {
    const { client } = watchedClient(2);
    await client.request(operations.academy(9));
    requests = [];
    script['/academies/3'] = [503, 503, 503, 503];
    const { error } = await viaCallback(client, 3);
    expect((error as GymctlError).kind).toBe('unavailable');
    expect((error as Error).message).toMatch(/gave up after 3 attempts/);
    expect(requests).toHaveLength(3);
    await client.close();
  });

  it('a 404 is one request and the same failure as on the promise path', async () => {
    const { client } = watchedClient();
    script['/academies/4'] = [404];
    const promised = await client.request(operations.academy(4)).catch((e: unknown) => e as GymctlError);
    requests = [];
    script['/academies/4'] = [404];
    const { error } = await viaCallback(client, 4);
    expect(requests).toEqual(['/academies/4']);
    expect((error as GymctlError).kind).toBe('not_found');
    expect((error as Error).message).toBe((promised as Error).message);
    await client.close();
  });

  it('a batch through it hands every answer over in order, with one request per id', async () => {
    const { client, fastSends } = watchedClient();
    const ids = Array.from({ length: 200 }, (_, i) => i + 1);
    script['/academies/7'] = [503];
    const seen: number[] = [];
    const failure = await runBatch<ApiResponse<{ id: number }>>({
      ids,
      concurrency: 8,
      send: (id, done) => client.requestWith(operations.academy(id) as never, undefined, done as never),
      onResult: (response) => seen.push(response.data.id),
      onError: () => expect.unreachable(),
    });
    expect(failure).toBeUndefined();
    expect(seen).toEqual(ids);
    expect(requests).toHaveLength(201);
    // All but the first few, sent before the connection was open, went through callbacks.
    expect(fastSends.length).toBeGreaterThan(150);
    await client.close();
  });
});
