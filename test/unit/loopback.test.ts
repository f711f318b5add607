/** The one loopback rule, for every form a host takes in a URL or on the command line. */
import { describe, expect, it } from 'vitest';
import { isLoopbackHost } from '../../src/api/transport/loopback.js';

describe('isLoopbackHost', () => {
  it.each(['localhost', 'LOCALHOST', 'localhost.', '127.0.0.1', '127.1.2.3', '::1', '[::1]', '0:0:0:0:0:0:0:1', '[::ffff:7f00:1]', '::ffff:127.0.0.1'])('%s is loopback', (host) =>
    expect(isLoopbackHost(host)).toBe(true),
  );

  it.each(['example.com', '128.0.0.1', '10.0.0.1', '::2', '[::]', '0.0.0.0', 'localhost.example.com', '127.0.0.1.nip.io', '[::ffff:a00:1]'])('%s is not', (host) =>
    expect(isLoopbackHost(host)).toBe(false),
  );

  it('agrees with how the URL parser writes each form', () => {
    for (const url of ['http://[::1]:4010', 'http://[0:0:0:0:0:0:0:1]/', 'http://[::ffff:127.0.0.1]/', 'http://127.0.0.1/', 'http://LocalHost/']) {
      expect(isLoopbackHost(new URL(url).hostname), url).toBe(true);
    }
  });
});
