// Settings that guard the key and what a script is handed (src/config/settings.ts): when the key goes out in clear
// text, which format two flags ask for, and which key stores the config file may name.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GymctlError } from '../../src/api/errors.js';
import {
  CONFIG_KEYS,
  checkProfileExists,
  isDebug,
  isInsecureBaseUrl,
  loginFor,
  profileFlag,
  parseBaseUrl,
  parseBoolean,
  parseProfileName,
  configKey,
  parseFormat,
  resolveFormat,
  resolveProfileName,
  resolveSettings,
  showTimeout,
} from '../../src/config/settings.js';
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

  it('--format csv -o json is refused, rather than one of them silently; -o alone, or the same twice, is its format', () => {
    expect(usage(() => resolveFormat({ format: 'csv', output: 'json' })).message).toBe('--format csv and --output json ask for different formats: give one of them');
    expect(usage(() => resolveFormat({ json: true, output: 'csv' })).message).toBe('--json and --output csv ask for different formats: give one of them');
    expect(usage(() => resolveFormat({ output: 'xml' })).message).toMatch(/^invalid format "xml" \(from --output\)/);
    expect(resolveFormat({ output: 'ndjson' })).toEqual({ value: 'ndjson', source: 'flag', origin: '--output' });
    expect(resolveFormat({ format: 'csv', output: 'csv' })).toEqual({ value: 'csv', source: 'flag', origin: '--output' });
  });
});

describe('the --profile a message names', () => {
  it('is named unless the profile is the one a command without --profile uses, so the command typed acts on the same profile', () => {
    expect(profileFlag('default', {})).toBe('');
    expect(profileFlag('work', {})).toBe(' --profile work');
    expect(profileFlag('work', { defaultProfile: 'work' })).toBe('');
    expect(profileFlag('default', { defaultProfile: 'work' })).toBe(' --profile default');
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

  it("a value in other letters' case is suggested in the case gymctl takes", () => {
    expect(usage(() => CONFIG_KEYS['key-store'].parse('KEYRING')).message).toMatch(/\(Did you mean keyring\?\)$/);
    expect(usage(() => CONFIG_KEYS.format.parse('JSON')).message).toMatch(/\(Did you mean json\?\)$/);
  });

  it('gymctl config set key-store with a misspelt store exits 2 and stores nothing', async () => {
    const config = tempConfigDir();
    try {
      // A stored setting (key-store keyring would need a keyring that answers), then the misspelt store.
      expect((await gymctl(['config', 'set', 'retries', '3'], { configDir: config.dir })).code).toBe(0);
      const before = readFileSync(path.join(config.dir, 'config.json'), 'utf8');
      const result = await gymctl(['config', 'set', 'key-store', 'keyrng'], { configDir: config.dir });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('invalid key store "keyrng"');
      expect(readFileSync(path.join(config.dir, 'config.json'), 'utf8')).toBe(before);
    } finally {
      config.remove();
    }
  });

  it('gymctl --json --format csv exits 2 before sending anything', async () => {
    expect(await gymctl(['whoami', '--sandbox', '--json', '--format', 'csv'])).toMatchObject({ code: 2, stdout: '' });
  });
});

describe('where the key is sent', () => {
  it('a plain http base URL off this machine is refused unless --allow-http, naming the fix', () => {
    expect(usage(() => parseBaseUrl('http://api.example.com', '--base-url')).message).toBe(
      'refusing to send the API key over plain http to api.example.com (base URL from --base-url): use https, or pass --allow-http if you must',
    );
    expect(parseBaseUrl('http://api.example.com/', '--base-url', true)).toBe('http://api.example.com');
    expect(parseBaseUrl('http://127.0.0.1:4010/', '--base-url')).toBe('http://127.0.0.1:4010');
  });

  it('a base URL typed without its scheme is refused with the one it most likely meant', () => {
    expect(usage(() => parseBaseUrl('localhost:4010', 'GYMCTL_BASE_URL')).message).toBe(
      'invalid base URL "localhost:4010" (from GYMCTL_BASE_URL): it has no scheme; did you mean http://localhost:4010?',
    );
    expect(usage(() => parseBaseUrl('[::1]:4010', 'x')).message).toContain('did you mean http://[::1]:4010?');
    expect(usage(() => parseBaseUrl('api.example.com/v1', 'x')).message).toContain('did you mean https://api.example.com/v1?');
    expect(usage(() => parseBaseUrl('api-1.example.com:443', 'x')).message).toContain('did you mean https://api-1.example.com:443?');
    // Text that is no host at all is not given a scheme to try.
    for (const text of ['-api.example.com', 'api.example.com-', '[zz]:1', 'host:123456', 'api.example.com/a b', 'a_b.example.com']) {
      expect(usage(() => parseBaseUrl(text, 'x')).message, text).not.toContain('did you mean');
    }
  });

  it('with --allow-http, the key going over plain http is warned about', () => {
    // The warning is given for what isInsecureBaseUrl says; a refused URL never gets that far.
    expect(isInsecureBaseUrl(parseBaseUrl('http://api.example.com', 'x', true))).toBe(true);
  });
});

describe('settings as stored and shown', () => {
  it('a timeout is shown as config set takes it back: whole seconds, else milliseconds', () => {
    expect(showTimeout(10_000)).toBe('10s');
    expect(showTimeout(1500)).toBe('1500ms');
    expect(showTimeout(1)).toBe('1ms');
  });

  it('accessible and csv-bom take true or false as people write them, and refuse anything else', () => {
    for (const text of ['true', 'YES', ' on ', '1']) expect(parseBoolean(text, 'accessible'), text).toBe(true);
    for (const text of ['false', 'No', 'off', '0']) expect(parseBoolean(text, 'accessible'), text).toBe(false);
    expect(usage(() => parseBoolean('maybe', 'csv-bom')).message).toBe('invalid csv-bom "maybe": expected true or false');
  });

  it('a misspelt format lists the formats there are', () => {
    expect(usage(() => parseFormat('xml', '--format')).message).toMatch(/^invalid format "xml" \(from --format\): expected one of table, json, /);
  });

  it('a stored retries setting is used when no flag is given, else the default', () => {
    const profile = { value: 'default', source: 'default' } as const;
    expect(resolveSettings({}, {}, profile, { retries: 5 }).retries).toEqual({ value: 5, source: 'config', origin: 'profile "default"' });
    expect(resolveSettings({}, {}, profile, undefined).retries).toMatchObject({ source: 'default' });
    expect(resolveSettings({ retries: '1' }, {}, profile, { retries: 5 }).retries).toEqual({ value: 1, source: 'flag', origin: '--retries' });
    expect(usage(() => resolveSettings({ retries: 'x' }, {}, profile, undefined)).message).toContain('(from --retries)');
    expect(usage(() => resolveSettings({ format: 'x' }, {}, profile, undefined)).message).toContain('(from --format)');
  });

  it('GYMCTL_DEBUG=" off " is off, as the words say', () => {
    expect(isDebug({}, { GYMCTL_DEBUG: ' off ' })).toBe(false);
    expect(isDebug({}, { GYMCTL_DEBUG: ' 1 ' })).toBe(true);
  });

  it('the login to run says --base-url URL only when no base URL is known', () => {
    expect(loginFor(undefined)).toBe('gymctl auth login --base-url URL');
    expect(loginFor({ value: 'https://api.example.com', source: 'env' })).toBe('gymctl auth login');
  });
});

describe('the profile in use', () => {
  it('a profile the file does not hold is refused, naming the profiles there are, the nearest one and how to create it', () => {
    const file = { profiles: { work: {}, home: {} } };
    expect(usage(() => checkProfileExists({ value: 'wrok', source: 'flag', origin: '--profile' }, file)).message).toBe(
      'there is no profile "wrok" (from --profile): the profiles are default, home, work (Did you mean work?); create one with `gymctl auth login --profile wrok`',
    );
    expect(usage(() => checkProfileExists({ value: 'zzz', source: 'default' }, {})).message).toBe(
      'there is no profile "zzz": the profiles are default; create one with `gymctl auth login --profile zzz`',
    );
    expect(() => checkProfileExists({ value: 'work', source: 'flag' }, file)).not.toThrow();
    expect(() => checkProfileExists({ value: 'default', source: 'default' }, {})).not.toThrow();
  });

  it('the stored default profile is used when neither --profile nor GYMCTL_PROFILE says, and a bad one is named by where it came from', () => {
    expect(resolveProfileName({}, {}, 'work')).toEqual({ value: 'work', source: 'config', origin: 'default-profile' });
    expect(usage(() => resolveProfileName({}, {}, 'bad name')).message).toBe(
      `invalid profile name "bad name" (from default-profile): use letters, digits, '-' and '_' (at most 64)`,
    );
    expect(usage(() => resolveProfileName({ profile: 'bad name' }, {})).message).toContain('(from --profile)');
  });
});

describe('names typed wrong', () => {
  it('a one-letter host without its scheme is offered one too', () => {
    expect(usage(() => parseBaseUrl('x:4010', 'x')).message).toContain('did you mean https://x:4010?');
  });

  it('a bad profile name with no origin is said plainly', () => {
    expect(usage(() => parseProfileName('bad name', undefined)).message).toBe(`invalid profile name "bad name": use letters, digits, '-' and '_' (at most 64)`);
  });

  it('an unknown config key lists the keys there are', () => {
    expect(usage(() => configKey('colour')).message).toBe(
      'unknown config key "colour": expected one of base-url, format, timeout, retries, key-store, default-profile, accessible, csv-bom',
    );
  });
});
