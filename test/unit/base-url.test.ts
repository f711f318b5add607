/** Where the key may be sent: https anywhere, plain http on this machine only unless allowed, and nothing else. */
import { describe, expect, it } from 'vitest';
import { baseUrlProblem, schemeProblem } from '../../src/api/base-url.js';

const problem = (url: string, allowHttp = false) => baseUrlProblem(new URL(url), allowHttp);

describe('baseUrlProblem', () => {
  it.each(['https://api.example.com', 'https://127.0.0.1:4010', 'http://localhost:4010', 'http://127.0.0.1/', 'http://[::1]:4010/v1', 'http://[::ffff:127.0.0.1]/'])(
    '%s is fine',
    (url) => {
      expect(problem(url)).toBeUndefined();
    },
  );

  it.each([
    ['http://api.example.com', 'api.example.com'],
    ['http://api.example.com:8080/v1', 'api.example.com:8080'],
    ['http://[2001:db8::ffff:7f00:1]/', '[2001:db8::ffff:7f00:1]'],
    ['http://[::ffff:7f00:1234:5]/', '[::ffff:7f00:1234:5]'],
    ['http://localhost.example.com/', 'localhost.example.com'],
    ['http://10.0.0.1/', '10.0.0.1'],
  ])('%s is plain http off this machine', (url, insecureHost) => {
    expect(problem(url)).toEqual({ insecureHost });
  });

  it('allows plain http off this machine only when told to, and never another scheme', () => {
    expect(problem('http://api.example.com', true)).toBeUndefined();
    expect(problem('ftp://api.example.com', true)).toEqual({ scheme: 'ftp:' });
    expect(problem('file:///etc/passwd', true)).toEqual({ scheme: 'file:' });
  });

  it.each([
    ['ftp://api.example.com', 'ftp:'],
    ['ws://localhost:4010', 'ws:'],
    ['httpss://api.example.com', 'httpss:'],
    ['localhost:4010', 'localhost:'],
    ['javascript:alert(1)', 'javascript:'],
  ])('%s has a scheme other than https: or http:', (url, scheme) => {
    expect(problem(url)).toEqual({ scheme });
  });
});

describe('schemeProblem', () => {
  it('names the scheme it got and the two it takes', () => {
    expect(schemeProblem('ftp:')).toBe('its scheme must be https: or http:, not ftp:');
  });
});
