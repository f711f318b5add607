import { describe, expect, it } from 'vitest';
import { GymctlError } from '../../src/api/errors.js';
import {
  configKey,
  DEFAULT_PROFILE,
  isDebug,
  maskKey,
  parseBaseUrl,
  parseFormat,
  parseTimeout,
  resolveProfileName,
  resolveSettings,
  type GlobalFlags,
  type Setting,
} from '../../src/config/settings.js';
import type { Profile } from '../../src/config/schema.js';

function usage(fn: () => unknown): GymctlError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(GymctlError);
    expect((error as GymctlError).kind).toBe('usage');
    return error as GymctlError;
  }
  throw new Error('expected a usage error, but nothing was thrown');
}

const defaultProfile: Setting<string> = { value: 'default', source: 'default' };

const resolve = (flags: GlobalFlags = {}, env: NodeJS.ProcessEnv = {}, profile?: Profile) => resolveSettings(flags, env, defaultProfile, profile);

describe('resolveProfileName', () => {
  it('defaults to "default"', () => {
    expect(DEFAULT_PROFILE).toBe('default');
    expect(resolveProfileName({}, {})).toEqual({ value: 'default', source: 'default' });
  });

  it('takes GYMCTL_PROFILE from the environment', () => {
    expect(resolveProfileName({}, { GYMCTL_PROFILE: 'work' })).toMatchObject({ value: 'work', source: 'env', origin: 'GYMCTL_PROFILE' });
  });

  it('prefers --profile over the environment', () => {
    expect(resolveProfileName({ profile: 'cli' }, { GYMCTL_PROFILE: 'work' })).toMatchObject({ value: 'cli', source: 'flag', origin: '--profile' });
  });

  it('treats an empty variable as unset (an empty flag is refused: see resolveSettings: timeout)', () => {
    expect(resolveProfileName({}, { GYMCTL_PROFILE: '' }).value).toBe('default');
  });

  it.each(['Prod_2', 'a', 'x-y', 'a'.repeat(64)])('accepts %s', (name) => {
    expect(resolveProfileName({ profile: name }, {}).value).toBe(name);
  });

  it.each(['../etc', 'a/b', 'has space', '-lead', '_lead', 'a.b', 'é', 'a'.repeat(65), 'x\n', 'x;rm'])('rejects %j', (name) => {
    const error = usage(() => resolveProfileName({ profile: name }, {}));
    expect(error.message).toContain('--profile');
  });

  it('says an invalid name came from the environment', () => {
    expect(usage(() => resolveProfileName({}, { GYMCTL_PROFILE: 'bad name' })).message).toContain('GYMCTL_PROFILE');
  });
});

describe('resolveSettings: base URL', () => {
  const profile: Profile = { baseUrl: 'https://profile.example.com' };

  it('is undefined when nothing sets it', () => {
    expect(resolve().baseUrl).toBeUndefined();
  });

  it('comes from the profile', () => {
    expect(resolve({}, {}, profile).baseUrl).toMatchObject({ value: 'https://profile.example.com', source: 'config' });
  });

  it('prefers the environment over the profile', () => {
    expect(resolve({}, { GYMCTL_BASE_URL: 'https://env.example.com' }, profile).baseUrl).toMatchObject({
      value: 'https://env.example.com',
      source: 'env',
      origin: 'GYMCTL_BASE_URL',
    });
  });

  it('prefers the flag over the environment and the profile', () => {
    expect(resolve({ baseUrl: 'https://flag.example.com' }, { GYMCTL_BASE_URL: 'https://env.example.com' }, profile).baseUrl).toMatchObject({
      value: 'https://flag.example.com',
      source: 'flag',
      origin: '--base-url',
    });
  });

  it('skips an empty variable', () => {
    expect(resolve({}, { GYMCTL_BASE_URL: '' }, profile).baseUrl?.value).toBe('https://profile.example.com');
  });

  it('removes a trailing slash', () => {
    expect(resolve({ baseUrl: 'https://api.example.com/v1/' }).baseUrl?.value).toBe('https://api.example.com/v1');
  });

  it('checks the chosen value and names where it came from', () => {
    expect(usage(() => resolve({}, { GYMCTL_BASE_URL: 'ftp://x.example.com' })).message).toContain('GYMCTL_BASE_URL');
    expect(usage(() => resolve({ baseUrl: 'nope' })).message).toContain('--base-url');
    expect(usage(() => resolve({}, {}, { baseUrl: 'https://u:p@x.example.com' })).message).toContain('profile "default"');
  });
});

describe('resolveSettings: API key', () => {
  it('is undefined when nothing sets it', () => {
    expect(resolve().apiKey).toBeUndefined();
  });

  it('comes from the stored profile', () => {
    expect(resolve({}, {}, { apiKey: 'stored_key_1234' }).apiKey).toMatchObject({ value: 'stored_key_1234', source: 'config' });
  });

  it('prefers GYMCTL_API_KEY over the stored key', () => {
    expect(resolve({}, { GYMCTL_API_KEY: 'env_key_5678' }, { apiKey: 'stored_key_1234' }).apiKey).toMatchObject({
      value: 'env_key_5678',
      source: 'env',
      origin: 'GYMCTL_API_KEY',
    });
  });

  it('trims surrounding whitespace from both', () => {
    expect(resolve({}, { GYMCTL_API_KEY: '  env_key\n' }).apiKey?.value).toBe('env_key');
    expect(resolve({}, {}, { apiKey: '\tstored_key \r\n' }).apiKey?.value).toBe('stored_key');
  });

  it('falls back to the stored key when the environment key is blank', () => {
    expect(resolve({}, { GYMCTL_API_KEY: '  \n' }, { apiKey: 'stored_key' }).apiKey).toMatchObject({ value: 'stored_key', source: 'config' });
    expect(resolve({}, { GYMCTL_API_KEY: '' }, { apiKey: 'stored_key' }).apiKey?.value).toBe('stored_key');
  });

  it('is undefined when the only key is blank', () => {
    expect(resolve({}, {}, { apiKey: '   ' }).apiKey).toBeUndefined();
  });
});

describe('resolveSettings: format', () => {
  it('defaults to table', () => {
    expect(resolve().format).toEqual({ value: 'table', source: 'default' });
  });

  it('comes from the profile', () => {
    expect(resolve({}, {}, { format: 'json' }).format).toMatchObject({ value: 'json', source: 'config' });
  });

  it('lets --json win over the stored format', () => {
    expect(resolve({ json: true }, {}, { format: 'table' }).format).toMatchObject({ value: 'json', source: 'flag', origin: '--json' });
  });

  it('keeps the stored format when --json is false', () => {
    expect(resolve({ json: false }, {}, { format: 'json' }).format.value).toBe('json');
  });
});

describe('resolveSettings: timeout', () => {
  it('defaults to 30000 ms', () => {
    expect(resolve().timeoutMs).toEqual({ value: 30000, source: 'default' });
  });

  it('comes from the profile', () => {
    expect(resolve({}, {}, { timeout: 5000 }).timeoutMs).toMatchObject({ value: 5000, source: 'config' });
  });

  it('prefers the flag over the profile', () => {
    expect(resolve({ timeout: '1500ms' }, {}, { timeout: 5000 }).timeoutMs).toMatchObject({ value: 1500, source: 'flag', origin: '--timeout' });
  });

  it('takes a bare number as seconds, as curl --max-time does', () => {
    expect(resolve({ timeout: '5' }).timeoutMs).toMatchObject({ value: 5000, source: 'flag' });
  });

  it.each(['0', '-5', '1.5s', 'abc', '99999999999', ''])('rejects --timeout %j', (text) => {
    expect(usage(() => resolve({ timeout: text })).message).toContain('--timeout');
  });

  it('an empty flag is refused, not taken for unset: --retries, --base-url and --profile too', () => {
    expect(usage(() => resolve({ retries: '' }, {}, { retries: 3 })).message).toContain('--retries');
    expect(usage(() => resolve({ baseUrl: '' }, { GYMCTL_BASE_URL: 'https://api.example.com' })).message).toContain('--base-url');
    expect(usage(() => resolveProfileName({ profile: '' }, { GYMCTL_PROFILE: 'work' })).message).toContain('--profile');
  });

  it('keeps the profile name', () => {
    const name: Setting<string> = { value: 'work', source: 'flag', origin: '--profile' };
    expect(resolveSettings({}, {}, name, undefined).profile).toBe(name);
  });
});

describe('isDebug', () => {
  it.each(['1', 'true', 'yes', 'anything'])('GYMCTL_DEBUG=%j turns tracing on', (value) => {
    expect(isDebug({}, { GYMCTL_DEBUG: value })).toBe(true);
  });

  it.each(['', '0', 'false', 'FALSE', 'no', 'off'])('GYMCTL_DEBUG=%j leaves it off, as it says', (value) => {
    expect(isDebug({}, { GYMCTL_DEBUG: value })).toBe(false);
    expect(isDebug({ debug: true }, { GYMCTL_DEBUG: value })).toBe(true);
  });
});

describe('parseBaseUrl', () => {
  it.each([
    ['https://api.example.com', 'https://api.example.com'],
    ['https://api.example.com/', 'https://api.example.com'],
    ['https://api.example.com/v1/', 'https://api.example.com/v1'],
    ['https://api.example.com/v1//', 'https://api.example.com/v1'],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080'],
    ['HTTPS://API.Example.com/', 'https://api.example.com'],
  ])('accepts %s as %s', (text, expected) => {
    expect(parseBaseUrl(text, '--base-url')).toBe(expected);
  });

  it.each([
    ['ftp: scheme', 'ftp://api.example.com', /scheme/],
    ['file: scheme', 'file:///etc/passwd', /scheme/],
    ['javascript: scheme', 'javascript:alert(1)', /scheme/],
    ['no scheme', 'api.example.com', /it has no scheme; did you mean https:\/\/api\.example\.com\?/],
    ['relative path', '/v1', /absolute URL/],
    ['empty', '', /absolute URL/],
    ['credentials', 'https://user:pass@api.example.com', /credentials/],
    ['user only', 'https://user@api.example.com', /credentials/],
    ['query', 'https://api.example.com/?key=1', /query/],
    ['empty query', 'https://api.example.com/?', /query/],
    ['fragment', 'https://api.example.com/#top', /fragment/],
    ['empty fragment', 'https://api.example.com/#', /fragment/],
  ])('rejects %s', (_name, text, reason) => {
    const error = usage(() => parseBaseUrl(text, 'GYMCTL_BASE_URL'));
    expect(error.message).toMatch(reason);
    expect(error.message).toContain('GYMCTL_BASE_URL');
  });

  it('does not echo credentials back in the message', () => {
    expect(usage(() => parseBaseUrl('https://user:s3cret@api.example.com', 'x')).message).not.toContain('s3cret');
  });
});

describe('parseTimeout', () => {
  it.each([
    // A bare number is seconds, as curl --max-time and gh take it.
    ['1', 1000],
    ['30', 30000],
    ['0.5', 500],
    ['1.5', 1500],
    ['0.001', 1],
    ['2147483', 2147483000],
    // Durations, as --cache takes them.
    ['1ms', 1],
    ['2147483647ms', 2147483647],
    ['5s', 5000],
    ['500ms', 500],
    ['2m', 120_000],
    ['1m30s', 90_000],
  ])('accepts %s', (text, value) => {
    expect(parseTimeout(text, 'timeout')).toBe(value);
  });

  it.each(['0', '-5', '.5', '5.', '1.5s', 'abc', '99999999999', '', ' 5', '0ms', '5 s', '1e3', '0x10', '2147484', '2147483648ms', '05', '0.0001', '25d'])('rejects %j', (text) => {
    const error = usage(() => parseTimeout(text, 'timeout'));
    expect(error.message).toContain(JSON.stringify(text));
    expect(error.message).toContain('timeout');
  });
});

describe('parseFormat', () => {
  it.each(['table', 'json'])('accepts %s', (text) => {
    expect(parseFormat(text, 'format')).toBe(text);
  });

  it.each(['yaml', 'JSON', 'Table', '', 'json ', 'xml'])('rejects %j', (text) => {
    const error = usage(() => parseFormat(text, 'format'));
    expect(error.message).toContain(JSON.stringify(text));
    expect(error.message).toContain('table');
  });
});

describe('configKey', () => {
  it.each(['base-url', 'format', 'timeout'])('accepts %s', (name) => {
    expect(configKey(name)).toBe(name);
  });

  it.each(['api-key', 'key'])('refuses %s, pointing to auth login, of the profile acted on when one is named', (name) => {
    expect(usage(() => configKey(name)).message).toContain('store it with `gymctl auth login`, which');
    expect(usage(() => configKey(name, () => ' --profile work')).message).toContain('store it with `gymctl auth login --profile work`, which');
  });

  it.each(['colour', 'baseUrl', 'toString', '__proto__', 'constructor', ''])('rejects unknown key %j', (name) => {
    const error = usage(() => configKey(name));
    expect(error.message).toMatch(/unknown config key/);
    expect(error.message).toContain('base-url');
  });
});

describe('maskKey', () => {
  it('shows only the last 4 characters of a long key', () => {
    const masked = maskKey('demo_key_all_academies');
    expect(masked).toBe('****mies');
    expect(masked).not.toContain('demo');
  });

  it('shows the last 4 characters of a 12-character key', () => {
    expect(maskKey('abcdefgh1234')).toBe('****1234');
  });

  it.each(['abcdefghijk', 'short', 'a', ''])('shows nothing of a short key %j', (key) => {
    const masked = maskKey(key);
    expect(masked).toBe('****');
  });

  it('never shows more than 4 characters of the key', () => {
    const key = 'sk_live_ABCDEFGHIJKLMNOPQRSTUVWXYZ';
    const masked = maskKey(key);
    expect(masked.replace(/^\*+/, '')).toBe('WXYZ');
  });
});

describe('one rule for whole numbers typed by users (retries, timeout, --concurrency, --port)', () => {
  it('takes plain decimal digits within the bounds, and nothing else', async () => {
    const { parseWholeNumber } = await import('../../src/files/system.js');
    expect(['0', '7', '64', '65535'].map((text) => parseWholeNumber(text, 0, 65535))).toEqual([0, 7, 64, 65535]);
    for (const text of ['', ' 1', '1 ', '+1', '-1', '1.0', '1e3', '0x10', '01', '65536', '99999999999999999']) expect(parseWholeNumber(text, 0, 65535), text).toBeUndefined();
    expect(parseWholeNumber('0', 1, 10)).toBeUndefined();
  });
});
