/**
 * Profiles on disk, kept by conf: the only module that imports it. The
 * file holds the API key, so it is written 0600 inside a 0700 folder, and it
 * is never cleared or rewritten when it cannot be read: a broken file is an
 * error that names it, and the file stays byte for byte as it was.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Conf from 'conf';
import * as z from 'zod/mini';
import { GymApiError } from '../api/errors.js';
import { formatIssues } from '../api/validation.js';
import { configFileSchema, type ConfigFile, type Profile } from './schema.js';

export const CONFIG_FILE_NAME = 'config.json';

/** `$GYMCTL_CONFIG_DIR`, else `$XDG_CONFIG_HOME/gymctl`, else `~/.config/gymctl`. */
export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.GYMCTL_CONFIG_DIR) return path.resolve(env.GYMCTL_CONFIG_DIR);
  const base = env.XDG_CONFIG_HOME ? path.resolve(env.XDG_CONFIG_HOME) : path.join(os.homedir(), '.config');
  return path.join(base, 'gymctl');
}

export class ConfigStore {
  readonly dir: string;
  readonly path: string;
  #conf: Conf<ConfigFile> | undefined;

  constructor(dir: string) {
    this.dir = dir;
    this.path = path.join(dir, CONFIG_FILE_NAME);
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
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw this.#readError(error);
    }
    const parsed = z.safeParse(configFileSchema, json, { reportInput: true });
    if (!parsed.success) {
      throw new GymApiError(
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
  updateProfile(name: string, change: (profile: Profile) => Profile): void {
    const file = this.read();
    const profiles = { ...file.profiles };
    profiles[name] = change({ ...(Object.hasOwn(profiles, name) ? profiles[name] : {}) });
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    this.#open().set('profiles', profiles);
  }

  #open(): Conf<ConfigFile> {
    if (this.#conf) return this.#conf;
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

  #readError(error: unknown): GymApiError {
    const reason =
      error instanceof SyntaxError
        ? `is not valid JSON (${error.message})`
        : `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
    return new GymApiError('internal', `config file ${this.path} ${reason}; fix or remove it`, { cause: error });
  }
}
