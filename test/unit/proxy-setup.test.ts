/**
 * The proxy's connection, set up on a client's first request, failing with an error of undici's own (not one of
 * gymctl's): the call fails as a network failure naming the API's host, the error as its cause, and the client is
 * still usable and closable. undici's ProxyAgent is replaced here by one that throws as it is made.
 */
import { describe, expect, it, vi } from 'vitest';

vi.mock('undici', async (importOriginal) => {
  const undici = await importOriginal<typeof import('undici')>();
  class FailingProxyAgent {
    constructor() {
      throw new TypeError('the proxy agent could not be made');
    }
  }
  return { ...undici, default: { ...undici, ProxyAgent: FailingProxyAgent }, ProxyAgent: FailingProxyAgent };
});

const { createClient } = await import('../../src/api/client.js');
const { GymApiError } = await import('../../src/api/errors.js');

describe('a proxy connection that cannot be set up', () => {
  it('fails the call as a network failure naming the API host, never a TypeError out of the client, and close() still resolves', async () => {
    const client = createClient({
      baseUrl: 'https://api.gym.test',
      apiKey: 'test_key_0123456789abcdef',
      retries: 0,
      env: { HTTPS_PROXY: 'http://127.0.0.1:9' },
    });
    const error = await client.getAcademy(1).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GymApiError);
    const failure = error as InstanceType<typeof GymApiError>;
    expect({ kind: failure.kind, reason: failure.reason, message: failure.message }).toEqual({
      kind: 'unavailable',
      reason: 'network',
      message: 'academy 1: the connection to api.gym.test failed (the proxy agent could not be made)',
    });
    expect(failure.cause).toBeInstanceOf(TypeError);
    await expect(client.close()).resolves.toBeUndefined();
  });
});
