/**
 * Profiles on disk. The file holds the API key: written 0600 in a 0700 folder of the user's own, never rewritten when
 * it cannot be read (it stays byte for byte as it was), read bounded (no FIFO, device or huge file). conf writes it
 * under gymctl's lock (conf takes none across processes), keeping what gymctl does not know as written; the read
 * commands never load conf.
 */
import type { Stats } from 'node:fs';
import * as z from 'zod/mini';
import { GymctlError } from '../api/errors.js';
import { formatIssues } from '../api/validation.js';
import { parseJsonExact, stringifyExact } from '../json/exact.js';
import { describeJsonError } from '../json/positions.js';
import { checkOwnWritable, ownershipWarning } from './ownership.js';
import { configFileSchema, type ConfigFile, type Profile } from './schema.js';
import { modesApply, OddFileError, readRegularFile } from '../files/system.js';
import { makeFolders } from '../files/trusted-path.js';

const fs = process.getBuiltinModule('node:fs');
const path = process.getBuiltinModule('node:path');

export const CONFIG_FILE_NAME = 'config.json';

/** No config file is anywhere near this large; a larger one is not read. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

export interface ConfigStoreOptions {
  /** Told about problems worth a warning, such as a file others can read. */
  warn?: (message: string) => void;
  /** Aborted on Ctrl-C or SIGTERM: waiting for the lock stops at once. */
  signal?: AbortSignal;
  /** How long to wait for another writer's lock (default 5 s). */
  lockWaitMs?: number;
}

export { configDir } from '../files/folders.js';

export class ConfigStore {
  readonly dir: string;
  readonly path: string;
  readonly #options: ConfigStoreOptions;
  #warned = false;

  constructor(dir: string, options: ConfigStoreOptions = {}) {
    this.dir = dir;
    this.path = path.join(dir, CONFIG_FILE_NAME);
    this.#options = options;
  }

  /** The whole file, validated, read once a run and again after each write; empty when there is none (nothing is created). */
  read(): ConfigFile {
    this.#read ??= this.#load().file;
    return this.#read;
  }

  #read: ConfigFile | undefined;

  /** The file's text, parsed and checked; `raw` keeps every member as written (`__proto__` and 64-bit integers too), for writing back. */
  #load(): { file: ConfigFile; raw: ConfigFile } {
    const text = this.#readText();
    if (text === undefined) return { file: {}, raw: {} };
    let json: unknown;
    try {
      json = parseJsonExact(text);
    } catch {
      throw new GymctlError('internal', `config file ${this.path} is not valid JSON (${describeJsonError(text)}); fix or remove it`);
    }
    const parsed = z.safeParse(configFileSchema(), json, { reportInput: true, jitless: true });
    if (!parsed.success) {
      throw new GymctlError('internal', `config file ${this.path} is not valid: ${formatIssues(parsed.error.issues, configFileSchema())}; fix or remove it`);
    }
    return { file: parsed.data, raw: json as ConfigFile };
  }

  #readText(): string | undefined {
    try {
      const text = readRegularFile(this.path, MAX_CONFIG_BYTES, (stat) => this.#checkReadable(stat));
      if (text === undefined) this.#checkFolder();
      return text;
    } catch (error) {
      if (error instanceof OddFileError) {
        throw new GymctlError(
          'internal',
          error.why === 'too large'
            ? `config file ${this.path} is larger than 1 MiB, which no gymctl config is; fix or remove it`
            : `config file ${this.path} is not a regular file; remove it, or point GYMCTL_CONFIG_DIR elsewhere`,
        );
      }
      throw error instanceof GymctlError ? error : this.#error('read', error);
    }
  }

  profile(name: string): Profile | undefined {
    const profiles = this.read().profiles ?? {};
    return Object.hasOwn(profiles, name) ? profiles[name] : undefined;
  }

  /** Changes one profile (`change` gets a copy, empty if new) and writes the file, keeping everything else. */
  updateProfile(name: string, change: (profile: Profile) => Profile): Promise<void> {
    return this.update((file) => {
      const profiles = { ...file.profiles };
      profiles[name] = change({ ...(Object.hasOwn(profiles, name) ? profiles[name] : {}) });
      return { ...file, profiles };
    });
  }

  /** Changes the whole file under the lock, so two gymctl processes writing at once each see the other's change. */
  async update(change: (file: ConfigFile) => ConfigFile): Promise<void> {
    this.#load(); // a broken file is reported as such, and never written over
    const target = this.checkWritable();
    try {
      makeFolders(this.dir);
      // A folder that holds the key is the user's alone, as when gymctl makes it.
      if (modesApply() && (fs.statSync(this.dir).mode & 0o077) !== 0) fs.chmodSync(this.dir, 0o700);
    } catch (error) {
      throw this.#error('write', error);
    }
    // conf writes the file; loaded only here, so reading never pays for it.
    const { Conf, acquireLock } = await import('./conf.js');
    const lock = await acquireLock(`${this.path}.lock`, (_code, error) => this.#error('write', error), this.#options.signal, this.#options.lockWaitMs);
    try {
      this.#load(); // under the lock, checked again by the bounded reader before conf reads it
      removeLeftovers(target);
      let conf: InstanceType<typeof Conf<ConfigFile>>;
      try {
        conf = new Conf<ConfigFile>({
          // The real file, so that a symlinked config.json stays a link.
          cwd: path.dirname(target),
          configName: path.basename(target),
          fileExtension: '',
          // gymctl's exact JSON: 64-bit integers and unknown members stay as written.
          serialize: (file) => `${stringifyExact(file, 2)}\n`,
          deserialize: (text) => parseJsonExact(text) as ConfigFile,
          configFileMode: 0o600,
          clearInvalidConfig: false,
          accessPropertiesByDotNotation: false,
        });
      } catch (error) {
        throw this.#error('read', error);
      }
      const next = change(conf.store);
      try {
        conf.store = next;
      } catch (error) {
        throw this.#error('write', error);
      }
    } finally {
      // Whatever happened, the next read is of the file as it now is.
      this.#read = undefined;
      lock.release();
    }
  }

  /** Refuses, before anything is written or a key asked for, a config folder or file not the user's own; else the file to write. */
  checkWritable(): string {
    this.#checkFolder();
    const target = this.#target();
    checkOwnWritable(this.dir, this.path);
    if (target !== this.path) checkOwnWritable(path.dirname(target), target);
    return target;
  }

  /** A config folder that is a file (GYMCTL_CONFIG_DIR set to one, say) is named as such, not read as an empty config. */
  #checkFolder(): void {
    for (let current = this.dir; path.dirname(current) !== current; current = path.dirname(current)) {
      let stat: Stats | undefined;
      try {
        stat = fs.statSync(current, { throwIfNoEntry: false });
      } catch {
        continue; // ENOTDIR: a part above is not a folder, and the loop gets to it
      }
      if (stat?.isDirectory()) return;
      if (stat) {
        const what = current === this.dir ? '' : ` (${current} is not one)`;
        throw new GymctlError('internal', `config folder ${this.dir} is not a folder${what}; point GYMCTL_CONFIG_DIR at a folder (gymctl config path prints the one in use)`);
      }
    }
  }

  /** Removes, under the lock, the temporary copies (which may hold the key) that killed writers left; `auth logout` calls it. */
  async sweep(): Promise<void> {
    const target = this.#target();
    if (leftoversOf(target).length === 0) return;
    checkOwnWritable(this.dir, this.path);
    const lock = await (await import('./conf.js')).acquireLock(`${this.path}.lock`, (_code, error) => this.#error('write', error), this.#options.signal, this.#options.lockWaitMs);
    try {
      removeLeftovers(this.#target());
    } finally {
      lock.release();
    }
  }

  /** The file to write: the one a symlinked config.json points to (so the link stays), else config.json. */
  #target(): string {
    try {
      if (fs.lstatSync(this.path).isSymbolicLink()) return fs.realpathSync(this.path);
    } catch {
      // No file yet, or a dangling link: config.json itself.
    }
    return this.path;
  }

  /** Warns, as ssh does, when others can read the file that holds the key, or another user owns it. */
  #checkReadable(stat: Stats): void {
    if (this.#warned || !this.#options.warn || !modesApply()) return;
    const owner = ownershipWarning(this.path, stat);
    const loose = (stat.mode & 0o077) !== 0;
    if (!owner && !loose) return;
    this.#warned = true;
    if (owner) this.#options.warn(owner);
    if (loose) {
      this.#options.warn(
        `warning: config file ${this.path} can be read by others (mode ${(stat.mode & 0o777).toString(8).padStart(4, '0')}) and may hold your API key; fix it with: chmod 600 ${this.path}`,
      );
    }
  }

  #error(action: 'read' | 'write', error: unknown): GymctlError {
    const { code, message, reason: said } = error as NodeJS.ErrnoException & { reason?: string };
    const words = said ?? (code ? REASONS[code] : undefined);
    const reason = code ? `${code}${words ? `: ${words}` : ''}` : message;
    const fix =
      action === 'write' && (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') ? `; check the permissions of ${this.dir}` : action === 'read' ? '; fix or remove it' : '';
    return new GymctlError('internal', `config file ${this.path} cannot be ${action === 'read' ? 'read' : 'written'} (${reason})${fix}`, { cause: error });
  }
}

/** Temporary files of dead writers beside `target` (conf's `.tmp-…`, older gymctl's `.<pid>.<random>.tmp`); removed only with the lock held. */
function leftoversOf(target: string): string[] {
  const dir = path.dirname(target);
  const name = path.basename(target);
  try {
    return fs
      .readdirSync(dir)
      .filter((entry) => entry.startsWith(`${name}.tmp-`) || (entry.startsWith(`${name}.`) && entry.endsWith('.tmp')))
      .map((entry) => path.join(dir, entry));
  } catch {
    return [];
  }
}

function removeLeftovers(target: string): void {
  for (const file of leftoversOf(target)) fs.rmSync(file, { force: true });
}

const REASONS: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  EISDIR: 'it is a folder',
  ENOTDIR: 'a part of its path is not a folder',
  EDQUOT: 'disk quota exceeded',
};
