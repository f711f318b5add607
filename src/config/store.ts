/**
 * Profiles on disk, kept by conf: the only module that imports it. The
 * file holds the API key, so it is written 0600 inside a 0700 folder, and it
 * is never cleared or rewritten when it cannot be read: a broken file is an
 * error that names it, and the file stays byte for byte as it was.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Conf from 'conf';
import * as z from 'zod/mini';
import { GymctlError } from '../api/errors.js';
import { formatIssues } from '../api/validation.js';
import { describeJsonError } from '../json/positions.js';
import { configFileSchema, type ConfigFile, type Profile } from './schema.js';

export const CONFIG_FILE_NAME = 'config.json';

/** How long a writer waits for another gymctl to finish writing. */
const LOCK_WAIT_MS = 5_000;
/** A lock older than this was left by a gymctl that died while writing. */
const LOCK_STALE_MS = 10_000;

const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

export interface ConfigStoreOptions {
  /** Told about problems worth a warning, such as a file others can read. */
  warn?: (message: string) => void;
}

/** `$GYMCTL_CONFIG_DIR`, else `$XDG_CONFIG_HOME/gymctl`, else `~/.config/gymctl`. */
export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.GYMCTL_CONFIG_DIR) return path.resolve(env.GYMCTL_CONFIG_DIR);
  const base = env.XDG_CONFIG_HOME ? path.resolve(env.XDG_CONFIG_HOME) : path.join(os.homedir(), '.config');
  return path.join(base, 'gymctl');
}

export class ConfigStore {
  readonly dir: string;
  readonly path: string;
  readonly #warn: ((message: string) => void) | undefined;
  #conf: Conf<ConfigFile> | undefined;
  #warned = false;

  constructor(dir: string, options: ConfigStoreOptions = {}) {
    this.dir = dir;
    this.path = path.join(dir, CONFIG_FILE_NAME);
    this.#warn = options.warn;
  }

  /**
   * The whole file, validated; an empty config when there is no file yet.
   * Read directly rather than through conf, which turns a top-level array
   * into an object and creates the folder when it finds no file.
   */
  read(): ConfigFile {
    let text: string;
    try {
      text = fs.readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw this.#readError(error);
    }
    this.#checkMode();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new GymctlError('internal', `config file ${this.path} is not valid JSON (${describeJsonError(text)}); fix or remove it`);
    }
    const parsed = z.safeParse(configFileSchema, json, { reportInput: true });
    if (!parsed.success) {
      throw new GymctlError(
        'internal',
        `config file ${this.path} is not valid: ${formatIssues(parsed.error.issues, configFileSchema)}; fix or remove it`,
      );
    }
    return parsed.data;
  }

  profile(name: string): Profile | undefined {
    const profiles = this.read().profiles ?? {};
    return Object.hasOwn(profiles, name) ? profiles[name] : undefined;
  }

  /**
   * Changes one profile and writes the file through conf (atomically, mode
   * 0600). `change` gets a copy of the
   * profile (empty if new) and returns it changed; everything else in the
   * file, including fields gymctl does not know, is kept.
   */
  updateProfile(name: string, change: (profile: Profile) => Profile): Promise<void> {
    return this.update((file) => {
      const profiles = { ...file.profiles };
      profiles[name] = change({ ...(Object.hasOwn(profiles, name) ? profiles[name] : {}) });
      return { ...file, profiles };
    });
  }

  /** Changes the whole file (for settings outside profiles) and writes it, as updateProfile does. */
  async update(change: (file: ConfigFile) => ConfigFile): Promise<void> {
    this.read(); // a broken file is reported as such before conf reads it too
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const conf = await this.#open();
    this.#locked(() => {
      const changed = change(this.read());
      conf.store = changed;
    });
  }

  /**
   * Runs a read-change-write with a lock file held, so that two gymctl
   * processes writing at once each see the other's change: neither is lost.
   */
  #locked(work: () => void): void {
    const lock = `${this.path}.lock`;
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      try {
        fs.writeFileSync(lock, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw this.#readError(error);
      }
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > LOCK_STALE_MS) {
        fs.rmSync(lock, { force: true });
      } else if (Date.now() > deadline) {
        throw new GymctlError('internal', `config file ${this.path} is locked by another gymctl; if none is running, remove ${lock}`);
      } else {
        sleepSync(5 + Math.random() * 20);
      }
    }
    try {
      work();
    } finally {
      fs.rmSync(lock, { force: true });
    }
  }

  /** Warns, as ssh does, when others can read the file that holds the key. */
  #checkMode(): void {
    if (this.#warned || !this.#warn || process.platform === 'win32') return;
    const mode = fs.statSync(this.path, { throwIfNoEntry: false })?.mode;
    if (mode === undefined || (mode & 0o077) === 0) return;
    this.#warned = true;
    this.#warn(
      `warning: config file ${this.path} can be read by others (mode ${(mode & 0o777).toString(8).padStart(4, '0')}) and may hold your API key; fix it with: chmod 600 ${this.path}`,
    );
  }

  /** conf, loaded only to write: reading the file needs none of it. */
  async #open(): Promise<Conf<ConfigFile>> {
    if (this.#conf) return this.#conf;
    const { default: Conf } = await import('conf');
    try {
      this.#conf = new Conf<ConfigFile>({
        cwd: this.dir,
        configName: path.basename(CONFIG_FILE_NAME, '.json'),
        configFileMode: 0o600,
        clearInvalidConfig: false,
        accessPropertiesByDotNotation: false,
        serialize: (value) => `${JSON.stringify(value, null, 2)}\n`,
      });
    } catch (error) {
      throw this.#readError(error);
    }
    return this.#conf;
  }

  #readError(error: unknown): GymctlError {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).name;
    return new GymctlError('internal', `config file ${this.path} cannot be read (${reason}); fix or remove it`, { cause: error });
  }
}
