/** `gymctl mcp --http`'s rules, called directly: where it may listen, the token, the Host and Origin it takes, the bearer check. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { bearerMatches, DEFAULT_HTTP_PORT, foreignHeader, parseListen, tokenOf } from '../../src/commands/mcp/http-guards.js';

describe('--http values', () => {
  it.each([
    [true, { host: '127.0.0.1', port: 8808 }],
    ['0', { host: '127.0.0.1', port: 0 }],
    ['9000', { host: '127.0.0.1', port: 9000 }],
    [' 9000 ', { host: '127.0.0.1', port: 9000 }],
    ['127.0.0.1:9000', { host: '127.0.0.1', port: 9000 }],
    ['localhost:0', { host: '127.0.0.1', port: 0 }],
    ['LOCALHOST:1', { host: '127.0.0.1', port: 1 }],
    ['localhost', { host: '127.0.0.1', port: 8808 }],
    ['[::1]:9000', { host: '::1', port: 9000 }],
    ['[::1]', { host: '::1', port: 8808 }],
    ['::1', { host: '::1', port: 8808 }],
  ] as const)('%j listens on %j', (value, listen) => {
    expect(parseListen(value)).toEqual(listen);
  });

  it('defaults to 8808', () => {
    expect(DEFAULT_HTTP_PORT).toBe(8808);
  });

  it.each([
    '0.0.0.0',
    '0.0.0.0:0',
    '192.168.1.5:1',
    '10.0.0.1:8808',
    'example.com',
    'example.com:80',
    '[::]:0',
    '[::]',
    '::',
    '[fe80::1]:1',
    ':8808',
    '127.0.0.2:1',
    'localhost.:1',
    'x[::1]:1',
    '[::1]x',
  ])('%s is not loopback: a usage error', (value) => {
    expect(() => parseListen(value)).toThrow(expect.objectContaining({ kind: 'usage', message: expect.stringMatching(/^--http serves on loopback only/) }));
  });

  it.each(['65536', 'localhost:', 'localhost:x', '127.0.0.1:-1', '[::1]:99999', '08'])('%s has no valid port: a usage error', (value) => {
    expect(() => parseListen(value)).toThrow(expect.objectContaining({ kind: 'usage' }));
  });

  it('says which port is invalid and what a port is', () => {
    expect(() => parseListen('localhost:x')).toThrow('invalid --http port "x": expected a whole number from 0 to 65535 (0 picks a free one)');
  });
});

describe('the token', () => {
  it('is made, 256 random bits in base64url, when GYMCTL_MCP_TOKEN is unset or empty', () => {
    for (const env of [{}, { GYMCTL_MCP_TOKEN: '' }]) {
      const { token, generated } = tokenOf(env);
      expect(generated).toBe(true);
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    }
    expect(tokenOf({}).token).not.toBe(tokenOf({}).token);
  });

  it("is GYMCTL_MCP_TOKEN's when it is 16 to 512 visible ASCII characters", () => {
    expect(tokenOf({ GYMCTL_MCP_TOKEN: 'x'.repeat(16) })).toEqual({ token: 'x'.repeat(16), generated: false });
    expect(tokenOf({ GYMCTL_MCP_TOKEN: '!~'.repeat(256) }).generated).toBe(false);
  });

  it.each(['x'.repeat(15), 'x'.repeat(513), 'with a space in it 0123', 'tab\there-0123456789', 'ünïcödé-0123456789'])('refuses %j, without saying it', (given) => {
    let message = '';
    try {
      tokenOf({ GYMCTL_MCP_TOKEN: given });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^GYMCTL_MCP_TOKEN must be 16 to 512 visible ASCII characters/);
    expect(message).not.toContain(given);
  });
});

describe('Host and Origin', () => {
  it.each([
    [{ host: 'localhost' }],
    [{ host: 'localhost:8808' }],
    [{ host: '127.0.0.1:1' }],
    [{ host: '[::1]:65535' }],
    [{ host: 'LocalHost' }],
    [{ host: '127.0.0.1:8808', origin: 'http://localhost:3000' }],
    [{ host: '127.0.0.1:8808', origin: 'https://127.0.0.1' }],
    [{ host: '127.0.0.1:8808', origin: 'http://[::1]:8808' }],
  ])('takes %j', (headers) => {
    expect(foreignHeader(headers)).toBeUndefined();
  });

  it.each([
    [{}, /Host/],
    [{ host: '' }, /Host/],
    [{ host: 'evil.example' }, /Host/],
    [{ host: 'localhost.evil.example' }, /Host/],
    [{ host: '127.0.0.1.nip.io:8808' }, /Host/],
    [{ host: '0.0.0.0:8808' }, /Host/],
    [{ host: 'localhost:8808:1' }, /Host/],
    [{ host: 'localhost', origin: 'http://evil.example' }, /Origin/],
    [{ host: 'localhost', origin: 'null' }, /Origin/],
    [{ host: 'localhost', origin: 'http://localhost.evil.example' }, /Origin/],
    [{ host: 'localhost', origin: 'file://' }, /Origin/],
    [{ host: 'localhost', origin: 'http://localhost/' }, /Origin/],
    [{ host: 'localhost', origin: 'ws://localhost' }, /Origin/],
  ])('refuses %j for its %s', (headers, which) => {
    expect(foreignHeader(headers)).toMatch(which);
  });

  it('says a missing Host as an empty one', () => {
    expect(foreignHeader({})).toBe('its Host header ("") is not localhost, 127.0.0.1 or [::1]');
  });
});

describe('the bearer check', () => {
  const expected = createHash('sha256').update('the-right-token-0123').digest();

  it('takes the token after Bearer, in any case, with spaces around', () => {
    for (const header of ['Bearer the-right-token-0123', 'bearer the-right-token-0123', 'BEARER  the-right-token-0123 '])
      expect(bearerMatches(header, expected), header).toBe(true);
  });

  it('refuses anything else', () => {
    for (const header of [
      undefined,
      '',
      'Bearer',
      'Bearer ',
      'the-right-token-0123',
      'Basic the-right-token-0123',
      'Bearer the-right-token-012',
      'Bearer the-right-token-01234',
      'Bearer the-right-token-0123 extra',
      'Bearerthe-right-token-0123',
    ]) {
      expect(bearerMatches(header, expected), String(header)).toBe(false);
    }
    // An empty token is never the token, even against the digest of an empty one.
    expect(bearerMatches('Bearer ', createHash('sha256').update('').digest())).toBe(false);
  });
});
