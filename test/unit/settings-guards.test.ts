// Settings that guard the key and what a script is handed (src/config/settings.ts): when the key goes out in clear
// text, which format two flags ask for, and which key stores the config file may name.
import { describe, expect, it } from 'vitest';
import { GymctlError } from '../../src/api/errors.js';
import { CONFIG_KEYS, isInsecureBaseUrl, resolveFormat } from '../../src/config/settings.js';
import { tempConfigDir } from '../helpers/cli.js';
import { gymctl } from '../helpers/harness.js';

function usage(fn: () => unknown): GymctlError {
  try {
    fn();
  } catch (error) {
    if (error instanceof GymctlError && error.kind === 'usage') return error;
    throw error;
  }
  throw new Error('expected a usage error');
}

describe('the key in clear text', () => {
  it('with --allow-http, a plain http base URL off this machine is one the "sending the API key over plain http" warning is given for', () => {
    expect(isInsecureBaseUrl('http://api.example.com')).toBe(true);
    expect(isInsecureBaseUrl('http://api.example.com:8080/v1')).toBe(true);
  });

  it('no warning for https, or for plain http to this machine', () => {
    expect(isInsecureBaseUrl('https://api.example.com')).toBe(false);
    for (const url of ['http://127.0.0.1:4010', 'http://localhost:4010', 'http://[::1]:4010']) expect(isInsecureBaseUrl(url), url).toBe(false);
  });
});

describe('the format two flags ask for', () => {
  it('--json --format csv is refused, rather than silently JSON', () => {
    expect(usage(() => resolveFormat({ json: true, format: 'csv' })).message).toBe('--json and --format csv ask for different formats: give one of them');
  });

  it('--json alone, or with --format json, is JSON; --format alone is its format; neither is no choice', () => {
    expect(resolveFormat({ json: true })).toEqual({ value: 'json', source: 'flag', origin: '--json' });
    expect(resolveFormat({ json: true, format: 'json' })).toEqual({ value: 'json', source: 'flag', origin: '--json' });
    expect(resolveFormat({ format: 'csv' })).toEqual({ value: 'csv', source: 'flag', origin: '--format' });
    expect(resolveFormat({})).toBeUndefined();
  });
});

describe('the key store a profile names', () => {
  it('takes config or keyring, and refuses anything else with the nearest name', () => {
    expect(CONFIG_KEYS['key-store'].parse('config')).toBe('config');
    expect(CONFIG_KEYS['key-store'].parse('keyring')).toBe('keyring');
    expect(usage(() => CONFIG_KEYS['key-store'].parse('keyrng')).message).toBe(
      'invalid key store "keyrng" (from key-store): expected config (the config file) or keyring (the system keyring) (Did you mean keyring?)',
    );
  });

  it('gymctl config set key-store with a misspelt store exits 2 and stores nothing', async () => {
    const config = tempConfigDir();
    try {
      expect((await gymctl(['config', 'set', 'key-store', 'keyring'], { configDir: config.dir })).code).toBe(0);
      const result = await gymctl(['config', 'set', 'key-store', 'keyrng'], { configDir: config.dir });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('invalid key store "keyrng"');
      expect((await gymctl(['config', 'get', 'key-store'], { configDir: config.dir })).stdout).toBe('keyring\n');
    } finally {
      config.remove();
    }
  });

  it('gymctl --json --format csv exits 2 before sending anything', async () => {
    expect(await gymctl(['whoami', '--sandbox', '--json', '--format', 'csv'])).toMatchObject({ code: 2, stdout: '' });
  });
});
