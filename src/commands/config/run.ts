/**
 * `gymctl config list | get | set | unset | path`: the settings of the active
 * profile (base-url, format, timeout, retries) and of the file (default-profile, accessible, csv-bom).
 */
import { CONFIG_KEYS, GLOBAL_CONFIG_KEYS, checkProfileExists, configKey, profileFlag, showTimeout, type ConfigKey, type GlobalConfigKey } from '../../config/settings.js';
import type { KeyStore } from '../../config/formats.js';
import type { ConfigFile } from '../../config/schema.js';
import { usageError } from '../../failures.js';
import { KEYRING_MISSING } from '../../keyring/protocol.js';
import type { Factory } from '../../factory.js';
import { configFolder, type Place } from '../../files/folders.js';
import { moveCommand } from '../doctor/windows.js';
import { printDocument } from '../../output/document.js';
import { columnsText, stdoutTerminal } from '../../output/human.js';
import { sanitizeLine } from '../../output/sanitize.js';

type ConfigDeps = Pick<Factory, 'io' | 'config' | 'profileName' | 'keyring' | 'printJson' | 'output' | 'env' | 'signal'>;

const isGlobal = (key: ConfigKey | GlobalConfigKey): key is GlobalConfigKey => Object.hasOwn(GLOBAL_CONFIG_KEYS, key);

/** The stored value, else the default, else undefined. */
function effectiveValue(file: ConfigFile, profileName: string, key: ConfigKey | GlobalConfigKey): unknown {
  if (isGlobal(key)) return file[GLOBAL_CONFIG_KEYS[key].field] ?? GLOBAL_CONFIG_KEYS[key].fallback;
  const setting = CONFIG_KEYS[key];
  const profiles = file.profiles ?? {};
  const profile = Object.hasOwn(profiles, profileName) ? profiles[profileName] : undefined;
  return profile?.[setting.field] ?? ('fallback' in setting ? setting.fallback : undefined);
}

/** A value as text: a timeout as a duration (`10s`), which `config set` reads back; other values as stored. */
const asText = (key: ConfigKey | GlobalConfigKey, value: unknown) => (key === 'timeout' && typeof value === 'number' ? showTimeout(value) : String(value ?? ''));

/** The store, the file and the active profile; a profile the file does not hold is refused (only `auth login` creates one). */
async function state(f: ConfigDeps) {
  const store = f.config();
  const file = store.read();
  const profile = f.profileName();
  checkProfileExists(profile, file);
  return { store, file, profileName: profile.value };
}

/** configKey, whose refusal of the API key names the login of the profile this command acts on. */
const keyNamed = (f: ConfigDeps, name: string) => configKey(name, () => profileFlag(f.profileName().value, f.config().read()));

const ALL_KEYS = [...Object.keys(CONFIG_KEYS), ...Object.keys(GLOBAL_CONFIG_KEYS)] as Array<ConfigKey | GlobalConfigKey>;

export async function runConfigList(f: ConfigDeps): Promise<void> {
  const { file, profileName } = await state(f);
  const values = ALL_KEYS.map((key) => [key, effectiveValue(file, profileName, key)] as const);
  const card = values.map(([key, value]): [string, string | undefined] => [key, value === undefined ? undefined : asText(key, value)]);
  await printDocument(
    f,
    () => `${JSON.stringify(Object.fromEntries(values.map(([key, value]) => [key, value ?? null])), null, 2)}\n`,
    // key=value lines in a pipe, as stored; on a terminal, a card whose values are made safe.
    () => (f.io.stdoutIsTTY ? columnsText(card, stdoutTerminal(f.io), 0, 3, true) : values.map(([key, value]) => `${key}=${asText(key, value)}\n`).join('')),
  );
}

export async function runConfigGet(f: ConfigDeps, name: string): Promise<void> {
  const key = keyNamed(f, name);
  // A setting of the whole file is read whatever the active profile is.
  const { file, profileName } = isGlobal(key) ? { file: f.config().read(), profileName: '' } : await state(f);
  const text = asText(key, effectiveValue(file, profileName, key));
  // Made safe on a terminal (the file may hold anything), as stored in a pipe.
  f.io.out(`${f.io.stdoutIsTTY ? sanitizeLine(text) : text}\n`);
}

export async function runConfigSet(f: ConfigDeps, name: string, value: string, options: { allowHttp?: boolean } = {}): Promise<void> {
  const key = keyNamed(f, name);
  if (isGlobal(key)) {
    const setting = GLOBAL_CONFIG_KEYS[key];
    const parsed = setting.parse(value);
    const store = f.config();
    // A default profile that does not exist would make every command fail: refuse it, naming those that do.
    if (key === 'default-profile') checkProfileExists({ value: String(parsed), source: 'config' }, store.read());
    return store.update((file) => ({ ...file, [setting.field]: parsed }));
  }
  const setting = CONFIG_KEYS[key];
  const parsed = setting.parse(value, options.allowHttp);
  const { store, profileName } = await state(f);
  if (key === 'key-store') await checkKeyStoreChange(f, profileName, parsed as KeyStore);
  await store.updateProfile(profileName, (profile) => ({ ...profile, [setting.field]: parsed }));
}

/** `key-store`, where the key is and its next login puts it, changes only while no key is kept in the other place: moving a key is `auth login`'s. */
async function checkKeyStoreChange(f: ConfigDeps, profileName: string, next: KeyStore): Promise<void> {
  const profile = f.config().profile(profileName);
  const current = profile?.keyStore ?? 'config';
  if (next === current) return;
  // A keyring that cannot be used is said at once when asked to keep keys there (nothing could read it to undo the change);
  // an install without the keyring module leaves a key it cannot read where it is, and says so, when asked to stop.
  if (next === 'keyring') await (await import('../../keyring/client.js')).readKeyringKey(profileName, { env: f.env, signal: f.signal });
  const held =
    current === 'config'
      ? profile?.apiKey !== undefined
      : await f.keyring.read(profileName).then(
          (key) => key !== undefined,
          (error: unknown) => {
            if (!(error instanceof Error && error.message.startsWith(KEYRING_MISSING))) throw error;
            f.io.err(`gymctl: ${error.message}: a key of profile "${profileName}" kept in the system keyring stays there, unused\n`);
            return false;
          },
        );
  if (!held) return;
  const again = profileFlag(profileName, f.config().read()); // each command named keeps the profile
  const where = current === 'config' ? 'the config file' : 'the system keyring';
  throw usageError(
    `profile "${profileName}" keeps its key in ${where}: move it with \`gymctl auth login ${next === 'keyring' ? '--keyring' : '--no-keyring'}${again}\`, or forget it first with \`gymctl auth logout${again}\``,
  );
}

export async function runConfigUnset(f: ConfigDeps, name: string): Promise<void> {
  const key = keyNamed(f, name);
  if (isGlobal(key)) {
    // Whatever the active profile: this is the way out of a default-profile that names none.
    const store = f.config();
    const { field } = GLOBAL_CONFIG_KEYS[key];
    return store.read()[field] === undefined ? undefined : store.update(({ [field]: _removed, ...rest }) => rest);
  }
  const { store, file, profileName } = await state(f);
  const { field } = CONFIG_KEYS[key];
  if (file.profiles?.[profileName]?.[field] === undefined) return;
  if (key === 'key-store') await checkKeyStoreChange(f, profileName, 'config');
  await store.updateProfile(profileName, ({ [field]: _removed, ...rest }) => rest);
}

/** The config file in use, on stdout; on Windows, while an older gymctl's `~\.config\gymctl` is in use, stderr says where it belongs. */
export async function runConfigPath(f: Pick<Factory, 'io' | 'config' | 'env'>, place: Place = {}): Promise<void> {
  const store = f.config();
  f.io.out(`${store.path}\n`);
  const folder = configFolder(f.env, place);
  if (folder.usingOld && folder.dir === store.dir)
    f.io.err(
      `gymctl: this is where an older gymctl kept its config on Windows; it is still read and written there until you move it to ${folder.preferred}: ${moveCommand(folder.old!, folder.preferred)}\n`,
    );
}
