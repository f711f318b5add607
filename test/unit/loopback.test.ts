/** The one loopback rule, for every form a host takes in a URL or on the command line. */
import { describe, expect, it } from 'vitest';
import { isLoopbackHost } from '../../src/api/transport/loopback.js';

describe('isLoopbackHost', () => {
  it.each(['localhost', 'LOCALHOST', 'localhost.', '127.0.0.1', '127.1.2.3', '127.10.200.255', '::1', '[::1]', '0:0:0:0:0:0:0:1', '[::ffff:7f00:1]', '::ffff:127.0.0.1'])(
    '%s is loopback',
    (host) => expect(isLoopbackHost(host)).toBe(true),
  );

  it.each(['example.com', '128.0.0.1', '10.0.0.1', '::2', '[::]', '0.0.0.0', 'localhost.example.com', '127.0.0.1.nip.io', '[::ffff:a00:1]'])('%s is not', (host) =>
    expect(isLoopbackHost(host)).toBe(false),
  );

  // IPv4-mapped loopback in every form the URL parser or a user writes it; each part of the pattern is needed.
  it.each(['::ffff:127.10.200.255', '[::FFFF:127.0.0.1]', '::ffff:7f00:1', '::ffff:7fff:ffff', '::ffff:7f12:3', '::ffff:7f00:abcd'])(
    '%s, IPv4-mapped loopback, is loopback',
    (host) => expect(isLoopbackHost(host)).toBe(true),
  );

  // A little off the mapped form: each would send the key over plain http to a host that is not this machine.
  it.each([
    '2001:db8::ffff:7f00:1', // the mapped form's groups at the end of a global address
    '[2001:db8::ffff:7f00:1]',
    '::ffff:7f00:1234:5', // more groups after it
    '::ffff:127.0.0.1:5',
    '::ffff:127.0.0.1.5',
    '1::ffff:127.0.0.1',
    '::ffff:7f00:12345', // a group of five digits
    '::ffff:7f0:1',
    '::ffff:7f00:',
    '::ffff:8000:1', // 128.0.0.1
    '::ffff:7g00:1',
    '::ffff:127.0.0.',
    '::ffff:127.0.0.1000',
    '::ffff:127..0.1',
    '::ffff:127.0.a.1',
    '::ffff:128.0.0.1',
    '::fffe:7f00:1',
    '127.0.0.1:80',
    'a127.0.0.1',
    '127.0.0.1000',
    '127.0.0',
    '::1:1',
    '1::1',
    'localhost..',
    'alocalhost',
    // Brackets are taken off only as a pair.
    '[localhost.',
    'alocalhost]',
    '[127.0.0.1',
  ])('%s is not', (host) => expect(isLoopbackHost(host)).toBe(false));

  it('agrees with how the URL parser writes each form that is not loopback', () => {
    for (const url of ['http://[2001:db8::ffff:7f00:1]/', 'http://[::ffff:7f00:1234:5]/', 'http://[::ffff:128.0.0.1]/', 'http://[::2]/']) {
      expect(isLoopbackHost(new URL(url).hostname), url).toBe(false);
    }
  });

  it('agrees with how the URL parser writes each form', () => {
    for (const url of ['http://[::1]:4010', 'http://[0:0:0:0:0:0:0:1]/', 'http://[::ffff:127.0.0.1]/', 'http://127.0.0.1/', 'http://LocalHost/']) {
      expect(isLoopbackHost(new URL(url).hostname), url).toBe(true);
    }
  });
});
