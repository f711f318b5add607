/**
 * Folders of other users, in-process: root running with another user's
 * HOME, and a link in a parent folder of the cache leading into a folder
 * that is not the cache. gymctl refuses, says why, and leaves every file
 * as it was: `cache clear` removes nothing outside the cache, and no
 * config, secret or answer is written into someone else's folder.
 * Changing owners needs root.
 */
import { chownSync, lchownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_KEY, DEMO_KEY_NO_ACADEMIES } from '../../src/sandbox/demo-data.js';
import { gymctl as inProcess, type GymctlOptions } from '../helpers/harness.js';
import { useSandboxAndConfig } from '../helpers/world.js';
import { needsRoot } from '../helpers/root.js';

const world = useSandboxAndConfig();

/** Changing owners needs root: CI runs as root; elsewhere these tests say so and are skipped. */
const isRoot = needsRoot('the tests of other users’ folders', 'to give folders and links to another user');
const OTHER_UID = 65534;

let base: string;
/** A user's home (owned by OTHER_UID), and a folder of root's that is not a cache: what a link may lead to. */
let home: string;
let target: string;
beforeEach(() => {
  base = mkdtempSync(path.join(tmpdir(), 'gymctl-users-'));
  home = path.join(base, 'home');
  target = path.join(base, 'root-owned');
  mkdirSync(home, { mode: 0o755 });
  mkdirSync(target, { mode: 0o755 });
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

/** gymctl as root with `home` as HOME: the config and cache folders are the defaults under it. */
const asRootWithHome = (args: string[], options: GymctlOptions = {}) =>
  inProcess(args, {
    ...options,
    env: { HOME: home, GYMCTL_CONFIG_DIR: undefined, XDG_CONFIG_HOME: undefined, XDG_CACHE_HOME: undefined, ...options.env },
  });

/** What a root-owned folder held, which a link into it must leave as it was. */
function plantRootFiles(): () => void {
  writeFileSync(path.join(target, 'config.json'), '{"profiles":{"default":{"apiKey":"root-key-1234567890"}}}\n', { mode: 0o600 });
  writeFileSync(path.join(target, 'secret'), `${'a'.repeat(64)}\n`, { mode: 0o600 });
  mkdirSync(path.join(target, 'gymctl', 'package'), { recursive: true, mode: 0o755 });
  writeFileSync(path.join(target, 'gymctl', 'package', 'index.js'), 'module.exports = 1;\n');
  writeFileSync(path.join(target, 'gymctl', 'notes.json'), '{}');
  const listing = () => JSON.stringify(readdirSync(target, { recursive: true }).sort());
  const before = listing();
  return () => {
    expect(listing()).toBe(before);
    expect(readFileSync(path.join(target, 'config.json'), 'utf8')).toContain('root-key-1234567890');
    expect(statSync(path.join(target, 'gymctl')).mode & 0o777).toBe(0o755);
  };
}

describe.skipIf(!isRoot)('a link in a parent folder of the cache, to a folder that is not the cache', () => {
  it("root with a user's HOME whose ~/.cache links to a folder of root's: cache clear removes nothing, exit 1, and says why", async () => {
    const unchanged = plantRootFiles();
    symlinkSync(target, path.join(home, '.cache'));
    lchownSync(path.join(home, '.cache'), OTHER_UID, OTHER_UID);
    chownSync(home, OTHER_UID, OTHER_UID);
    const result = await asRootWithHome(['cache', 'clear']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `gymctl: gymctl runs as uid 0 and will not use the cache folder ${home}/.cache/gymctl: ${home} belongs to another user (uid ${OTHER_UID}); run gymctl as that user, or set XDG_CACHE_HOME to a folder of your own\n`,
    );
    unchanged();
  });

  it('a link made by another user, in a folder of root’s own: cache clear and --cache leave its target alone', async () => {
    const unchanged = plantRootFiles();
    const cacheHome = path.join(base, 'cache-home');
    mkdirSync(cacheHome);
    const link = path.join(cacheHome, 'linked');
    symlinkSync(target, link);
    lchownSync(link, OTHER_UID, OTHER_UID);
    const env = { XDG_CACHE_HOME: link, GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: DEMO_KEY };
    const clear = await inProcess(['cache', 'clear'], { configDir: world.config.dir, env });
    expect(clear.code).toBe(1);
    expect(clear.stderr).toContain(`will not use the cache folder ${link}/gymctl: ${link} is a link made by another user (uid ${OTHER_UID})`);
    // whoami --cache 1h through the same link: no chmod of the target, nothing written into it; the answer comes from the server.
    const whoami = await inProcess(['whoami', '--json', '--cache', '1h'], { configDir: world.config.dir, env });
    expect(whoami.code, whoami.stderr).toBe(0);
    expect(JSON.parse(whoami.stdout).id).toBe(101);
    expect(whoami.stderr).toContain(
      `warning: the cache cannot be used, so the answer comes from the server: gymctl runs as uid 0 and will not use the cache folder ${link}/gymctl`,
    );
    unchanged();
  });

  it('a link of root’s own to a folder another user owns is refused, naming the link', async () => {
    const theirs = path.join(base, 'theirs');
    mkdirSync(path.join(theirs, 'gymctl', 'k'), { recursive: true });
    writeFileSync(path.join(theirs, 'gymctl', 'k', 'a.json'), '{}');
    chownSync(theirs, OTHER_UID, OTHER_UID);
    const link = path.join(base, 'link');
    symlinkSync(theirs, link);
    const clear = await inProcess(['cache', 'clear'], { configDir: world.config.dir, env: { XDG_CACHE_HOME: link } });
    expect(clear.code).toBe(1);
    expect(clear.stderr).toContain(`${theirs} belongs to another user (uid ${OTHER_UID}) (the link ${link} leads there)`);
    expect(readdirSync(path.join(theirs, 'gymctl', 'k'))).toEqual(['a.json']);
  });

  it('auth login replacing a key: saved, exit 0, and a warning that the old key’s cached answers stay in a folder gymctl will not touch', async () => {
    const link = path.join(base, 'linked');
    symlinkSync(target, link);
    lchownSync(link, OTHER_UID, OTHER_UID);
    const own = { XDG_CACHE_HOME: path.join(base, 'own-cache') };
    const first = await inProcess(['auth', 'login', '--with-key', '--base-url', world.sandbox.url], { configDir: world.config.dir, stdin: DEMO_KEY, env: own });
    expect(first.code, first.stderr).toBe(0);
    expect((await inProcess(['whoami', '--cache', '1m'], { configDir: world.config.dir, env: own })).code).toBe(0); // makes the cache's secret
    const unchanged = plantRootFiles();
    const second = await inProcess(['auth', 'login', '--with-key'], { configDir: world.config.dir, stdin: DEMO_KEY_NO_ACADEMIES, env: { XDG_CACHE_HOME: link } });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(`gymctl: warning: the cached answers of that key were not removed: gymctl runs as uid 0 and will not use the cache folder ${link}/gymctl`);
    expect(readFileSync(path.join(world.config.dir, 'config.json'), 'utf8')).toContain(DEMO_KEY_NO_ACADEMIES);
    unchanged();
  });

  it('a link of the user’s own to a folder of the user’s own is followed: cache clear empties it', async () => {
    const real = path.join(base, 'real-cache');
    mkdirSync(real);
    const link = path.join(base, 'cache-link');
    symlinkSync(real, link);
    const env = { XDG_CACHE_HOME: link, GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: DEMO_KEY };
    const whoami = await inProcess(['whoami', '--cache', '1h'], { configDir: world.config.dir, env });
    expect(whoami.stderr).toBe('');
    const clear = await inProcess(['cache', 'clear'], { configDir: world.config.dir, env });
    expect(clear.stderr).toBe(`Removed 1 cached answer from ${link}/gymctl.\n`);
  });
});

describe.skipIf(!isRoot)("root with another user's HOME writes nothing there, and says why", () => {
  beforeEach(() => chownSync(home, OTHER_UID, OTHER_UID));
  const refusal = `gymctl: gymctl runs as uid 0 and will not write the config folder ${path.join('HOME', '.config', 'gymctl')}: HOME belongs to another user (uid ${OTHER_UID}); run gymctl as that user, or point GYMCTL_CONFIG_DIR at a folder of your own\n`;

  it('auth login --with-key: refused before the key is checked or stored, exit 1', async () => {
    const result = await asRootWithHome(['auth', 'login', '--with-key', '--base-url', world.sandbox.url], { stdin: DEMO_KEY });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(refusal.replaceAll('HOME', home));
    expect(world.requests).toEqual([]);
    expect(readdirSync(home)).toEqual([]);
  });

  it('config set: refused, nothing written', async () => {
    const result = await asRootWithHome(['config', 'set', 'base-url', 'https://api.example.com']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(refusal.replaceAll('HOME', home));
    expect(readdirSync(home)).toEqual([]);
  });

  it('--cache: the answer, a warning, and no cache secret or cache folder in that HOME', async () => {
    const result = await asRootWithHome(['whoami', '--json', '--cache', '1m'], { env: { GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: DEMO_KEY } });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).id).toBe(101);
    expect(result.stderr).toContain(`${home} belongs to another user (uid ${OTHER_UID})`);
    expect(readdirSync(home)).toEqual([]);
  });

  it('with folders of its own (GYMCTL_CONFIG_DIR, XDG_CACHE_HOME), root is served as usual', async () => {
    const env = { GYMCTL_CONFIG_DIR: world.config.dir, XDG_CACHE_HOME: path.join(base, 'root-cache') };
    const login = await asRootWithHome(['auth', 'login', '--with-key', '--base-url', world.sandbox.url], { stdin: DEMO_KEY, env });
    expect(login.code, login.stderr).toBe(0);
    const whoami = await asRootWithHome(['whoami', '--cache', '1m'], { env });
    expect(whoami.code, whoami.stderr).toBe(0);
    expect(whoami.stderr).toBe('');
    expect(readdirSync(home)).toEqual([]);
  });
});

describe('GYMCTL_CONFIG_DIR pointing at a file', () => {
  it('says the config folder is not a folder (exit 1), not that there is no API key', async () => {
    const file = path.join(base, 'a-file');
    writeFileSync(file, 'not a folder\n');
    const message = `gymctl: config folder ${file} is not a folder; point GYMCTL_CONFIG_DIR at a folder (gymctl config path prints the one in use)\n`;
    for (const args of [['whoami'], ['config', 'get', 'base-url'], ['config', 'set', 'format', 'csv']]) {
      const result = await inProcess(args, { configDir: file, env: { GYMCTL_BASE_URL: world.sandbox.url } });
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr, args.join(' ')).toBe(message);
    }
    const below = await inProcess(['whoami'], { configDir: path.join(file, 'gymctl'), env: { GYMCTL_BASE_URL: world.sandbox.url } });
    expect(below.stderr).toBe(
      `gymctl: config folder ${file}/gymctl is not a folder (${file} is not one); point GYMCTL_CONFIG_DIR at a folder (gymctl config path prints the one in use)\n`,
    );
    expect(readFileSync(file, 'utf8')).toBe('not a folder\n');
  });
});
