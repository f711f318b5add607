/** The library follows the CLI's rules: usage failures, plain http only to loopback, a debug callback that cannot crash it. */
import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/client.js';
import { GymApiError } from '../../src/api/errors.js';
import { DEMO_KEY } from '../../src/sandbox/demo-data.js';
import { startSandbox } from '../../src/sandbox/server.js';

function usage(make: () => unknown): GymApiError {
  try {
    make();
  } catch (error) {
    expect(error).toBeInstanceOf(GymApiError);
    expect((error as GymApiError).kind).toBe('usage');
    return error as GymApiError;
  }
  throw new Error('expected a usage failure');
}

describe('createClient', () => {
  it('a missing or malformed apiKey, or no options at all, is a usage failure, not a TypeError', () => {
    usage(() => createClient(undefined as never));
    usage(() => createClient({ baseUrl: 'https://api.example.com' } as never));
    expect(usage(() => createClient({ baseUrl: 'https://api.example.com', apiKey: 'has space' })).message).not.toContain('has space');
  });

  it('plain http goes only to loopback, unless the caller opts in with allowInsecureHttp', () => {
    expect(usage(() => createClient({ baseUrl: 'http://api.example.com', apiKey: DEMO_KEY })).message).toContain('allowInsecureHttp');
    expect(() => createClient({ baseUrl: 'http://api.example.com', apiKey: DEMO_KEY, allowInsecureHttp: true })).not.toThrow();
    for (const loopback of ['http://127.0.0.1:4010', 'http://localhost', 'http://[::1]:8080']) {
      expect(() => createClient({ baseUrl: loopback, apiKey: DEMO_KEY })).not.toThrow();
    }
    usage(() => createClient({ baseUrl: 'ftp://api.example.com', apiKey: DEMO_KEY }));
  });

  it('a debug callback that throws never breaks a request', async () => {
    const sandbox = await startSandbox();
    const client = createClient({
      baseUrl: sandbox.url,
      apiKey: DEMO_KEY,
      debug: () => {
        throw new Error('the caller’s logger is broken');
      },
    });
    try {
      expect((await client.getAcademy(1)).name).toBe('Alfama Jiu-Jitsu');
    } finally {
      await client.close();
      await sandbox.close();
    }
  });
});
