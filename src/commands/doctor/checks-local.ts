/**
 * The doctor checks that stay on this machine: Node's version, the config file (readable, the user's own, closed to others, no
 * lock left), the profile and its key's source, the response cache's folder and secret, and the compile cache's folder.
 */
import { GymctlError } from '../../api/errors.js';
import { checkProfileExists, loginFor, profileFlag } from '../../config/settings.js';
import { toFailure } from '../../failures.js';
import type { Factory } from '../../factory.js';
import { KEYRING_MISSING, keyringWayIn } from '../../keyring/protocol.js';
import { keyringStore } from '../../keyring/stores.js';
import { currentUid, modesApply } from '../../files/system.js';
import { codeCacheDir } from '../../files/folders.js';
import { type Outcome, result } from './outcome.js';
import type { Stats } from 'node:fs';
import { onWindows, removeCommand } from './windows.js';

const fs = process.getBuiltinModule('node:fs');
const path = process.getBuiltinModule('node:path');

export function nodeCheck(): Outcome {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  const supported = (major === 20 && minor >= 19) || (major === 22 && minor >= 12) || major >= 24;
  return supported
    ? result('node', 'pass', `Node ${process.versions.node}`)
    : result('node', 'fail', `Node ${process.versions.node} is not supported`, 'install Node 20.19 or newer, 22.12 or newer, or 24 and later', 'usage');
}

/** The config file: there, a regular file (or a link to one) of the user's own, closed to others (on Windows: in the user's profile), readable, and no lock left. */
export function configCheck(f: Pick<Factory, 'config' | 'env'>, platform: NodeJS.Platform = process.platform): Outcome[] {
  const store = f.config();
  try {
    store.read(); // first: a folder that is a file, or a file that is not JSON, is a failing row, not "none yet"
  } catch (error) {
    let folder = true;
    try {
      folder = fs.statSync(store.dir).isDirectory();
    } catch {
      // Not there yet: made on the first write.
    }
    const fix = folder ? `fix or remove ${store.path}` : 'point GYMCTL_CONFIG_DIR at a folder';
    return [result('config file', 'fail', toFailure(error).message, fix, 'usage')];
  }
  let stat: Stats;
  try {
    stat = fs.statSync(store.path);
  } catch {
    return [result('config file', 'pass', `none yet (${store.path})`)];
  }
  const out: Outcome[] = [];
  const link = fs.lstatSync(store.path).isSymbolicLink() ? `, a link to ${fs.realpathSync(store.path)}` : '';
  const uid = currentUid();
  if (uid !== undefined && stat.uid !== uid)
    out.push(result('config file', 'warn', `${store.path} belongs to another user (uid ${stat.uid})${link}`, 'use a config folder of your own (GYMCTL_CONFIG_DIR)'));
  else if (!modesApply(platform)) out.push(onWindows('config file', store.path, f.env, link));
  else if ((stat.mode & 0o077) !== 0)
    out.push(result('config file', 'warn', `${store.path} is mode ${(stat.mode & 0o777).toString(8)}: others can read the key${link}`, `chmod 600 ${store.path}`));
  else out.push(result('config file', 'pass', `${store.path} (mode 600)${link}`));
  if (fs.existsSync(`${store.path}.lock`))
    out.push(result('config lock', 'warn', `${store.path}.lock is there: another gymctl is writing, or one was stopped`, 'wait; gymctl takes over a stale lock on its next write'));
  return out;
}

const PROFILE_SOURCES: Record<string, string> = { flag: '--profile', env: 'GYMCTL_PROFILE', config: 'default-profile in the config file', default: 'the default' };

/** `platform`: whose keyring the key row names (stores.ts). */
export async function profileAndKeyChecks(f: Pick<Factory, 'config' | 'keyring' | 'profileName' | 'settings'>, platform: NodeJS.Platform = process.platform): Promise<Outcome[]> {
  const name = f.profileName();
  try {
    checkProfileExists(name, f.config().read());
  } catch (error) {
    // As every other command refuses it: a mistyped profile is said as such, not as a missing key.
    return [result('profile', 'fail', toFailure(error).message, `gymctl auth login --profile ${name.value}`, 'usage')];
  }
  const out = [result('profile', 'pass', `"${name.value}" (from ${PROFILE_SOURCES[name.source] ?? name.source})`)];
  const stored = f.config().profile(name.value);
  const again = profileFlag(name.value, f.config().read()); // each login named keeps the profile
  // The stored base URL, when every command refuses it (plain http without --allow-http): runDoctor checked the flags and variables.
  const settings = await f.settings().catch(toFailure);
  if (settings instanceof GymctlError) return [...out, result('base URL', 'fail', settings.message, `gymctl config set base-url URL${again}`, settings.kind)];
  if (settings.apiKey?.source === 'env' && (stored?.apiKey || stored?.keyStore === 'keyring'))
    return [...out, result('key', 'warn', `GYMCTL_API_KEY overrides the key stored for profile "${name.value}"`, 'unset GYMCTL_API_KEY to use the stored key')];
  if (settings.apiKey) {
    const { source, origin } = settings.apiKey;
    return [...out, result('key', 'pass', `from ${source === 'env' ? 'GYMCTL_API_KEY' : source === 'config' ? 'the config file' : (origin ?? source)}`)];
  }
  if (stored?.keyStore !== 'keyring')
    return [...out, result('key', 'fail', `no API key for profile "${name.value}"`, `${loginFor(settings.baseUrl, again)}, or set GYMCTL_API_KEY`, 'unauthorized')];
  try {
    const key = await f.keyring.read(name.value);
    out.push(
      key
        ? result('key', 'pass', `from the system keyring (${keyringStore(platform).name}), which answered`)
        : result('key', 'fail', 'the system keyring holds no key for this profile', `gymctl auth login --keyring${again}`, 'unauthorized'),
    );
  } catch (error) {
    const { message } = toFailure(error);
    // No keyring module on this install, or one that does not load: unlocking is not the way out.
    const way = message.startsWith(KEYRING_MISSING) ? keyringWayIn(message) : keyringStore(platform).fix;
    out.push(result('key', 'fail', message, `${way}, or gymctl auth login --no-keyring${again}`, 'unauthorized'));
  }
  return out;
}

/** A cache folder: none yet, or the user's own, closed to others. `notFolder`: the row for something else there; `off`: what a folder that fails costs. */
function folderCheck(check: string, dir: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform, none: string, notFolder: (stat: Stats) => Outcome, off = ''): Outcome {
  let stat: Stats;
  try {
    stat = fs.lstatSync(dir);
  } catch (error) {
    // None yet only when it can be made: not where a file stands in the path (ENOTDIR).
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') return result(check, 'warn', `${dir} cannot be made (${code})${off && `, ${off}`}`, 'set XDG_CACHE_HOME to a folder of your own');
    return result(check, 'pass', `${none} (${dir})`);
  }
  const uid = currentUid();
  if (!stat.isDirectory()) return notFolder(stat);
  if (uid !== undefined && stat.uid !== uid)
    return result(check, 'warn', `${dir} belongs to another user (uid ${stat.uid})${off && `, ${off}`}`, 'set XDG_CACHE_HOME to a folder of your own');
  if (!modesApply(platform)) return onWindows(check, dir, env);
  if ((stat.mode & 0o077) !== 0) return result(check, 'warn', `${dir} is mode ${(stat.mode & 0o777).toString(8)}${off && `: others can open it, ${off}`}`, `chmod 700 ${dir}`);
  return result(check, 'pass', `${dir} (mode 700)`);
}

export async function cacheCheck(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): Promise<Outcome> {
  const dir = (await import('../../cache/store.js')).cacheDir(env);
  return folderCheck('cache folder', dir, env, platform, 'none yet', (stat) =>
    result('cache folder', 'warn', `${dir} is not a folder${stat.isSymbolicLink() ? ' (a link)' : ''}`, `remove ${dir}`),
  );
}

/** The response cache's secret, read as every `--cache` run reads it: what would make those runs warn is a warning here. */
export async function cacheSecretCheck(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): Promise<Outcome> {
  const { cacheDir, hasCacheSecret } = await import('../../cache/store.js');
  const file = path.join(cacheDir(env), 'secret');
  try {
    return result('cache secret', 'pass', hasCacheSecret(env) ? file : `none yet (${file})`);
  } catch (error) {
    // What every --cache run warns of, before it asks the server instead.
    return result('cache secret', 'warn', toFailure(error).message, removeCommand(file, platform));
  }
}

/** The compile cache's folder, trusted only as the user's own closed to others (startup/boot.ts): else the cache is off without a word. */
export async function codeCacheCheck(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): Promise<Outcome> {
  if (env.GYMCTL_NO_CODE_CACHE === '1') return result('code cache', 'pass', 'turned off (GYMCTL_NO_CODE_CACHE=1)');
  const dir = codeCacheDir(env);
  const none = 'enableCompileCache' in process.getBuiltinModule('node:module') ? 'none yet' : `none: Node ${process.version} has no compile cache`;
  const off = 'so the code cache is off: every start compiles gymctl again';
  const notFolder = () => result('code cache', 'warn', `${dir} is not a folder (a link, or a file), ${off}`, `${removeCommand(dir, platform)} (gymctl makes the folder again)`);
  return folderCheck('code cache', dir, env, platform, none, notFolder, off);
}
