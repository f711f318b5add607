/**
 * `gymctl config list | get | set | unset | path`: the settings of the active
 * profile (base-url, format, timeout, retries) and of the file (default-profile).
 */
import { CONFIG_KEYS, GLOBAL_CONFIG_KEYS, configKey, type ConfigKey, type GlobalConfigKey } from '../config/settings.js';
import type { KeyStore } from '../config/formats.js';
import type { ConfigFile } from '../config/schema.js';
import { usageError } from '../api/errors.js';
import type { Context } from '../context.js';
import { sanitizeLine } from '../output/sanitize.js';

const isGlobal = (key: ConfigKey | GlobalConfigKey): key is GlobalConfigKey => Object.hasOwn(GLOBAL_CONFIG_KEYS, key);

/** The stored value, else the default, else undefined. */
function effectiveValue(file: ConfigFile, profileName: string, key: ConfigKey | GlobalConfigKey): unknown {
  if (isGlobal(key)) {
    const setting = GLOBAL_CONFIG_KEYS[key];
    return file[setting.field] ?? setting.fallback;
  }
  const setting = CONFIG_KEYS[key];
  const profiles = file.profiles ?? {};
  const profile = Object.hasOwn(profiles, profileName) ? profiles[profileName] : undefined;
  return profile?.[setting.field] ?? ('fallback' in setting ? setting.fallback : undefined);
}

/** A stored value as text: made safe on a terminal (the file may hold anything), as stored in a pipe. */
const shown = (ctx: Context, value: unknown) => {
  const text = String(value ?? '');
  return ctx.io.stdoutIsTTY ? sanitizeLine(text) : text;
};

async function state(ctx: Context) {
  const store = await ctx.store();
  return { store, file: store.read(), profileName: ctx.profileName().value };
}

const ALL_KEYS = [...Object.keys(CONFIG_KEYS), ...Object.keys(GLOBAL_CONFIG_KEYS)] as Array<ConfigKey | GlobalConfigKey>;

export async function runConfigList(ctx: Context, options: { json?: boolean }): Promise<void> {
  const { file, profileName } = await state(ctx);
  if (options.json || ctx.flags.json || ctx.flags.jq !== undefined) {
    // The same values as the text form, null where there is none.
    const values = Object.fromEntries(ALL_KEYS.map((key) => [key, effectiveValue(file, profileName, key) ?? null]));
    return ctx.printJson(`${JSON.stringify(values, null, 2)}\n`);
  }
  ctx.io.out(ALL_KEYS.map((key) => `${key}=${shown(ctx, effectiveValue(file, profileName, key))}\n`).join(''));
}

export async function runConfigGet(ctx: Context, name: string): Promise<void> {
  const key = configKey(name);
  const { file, profileName } = await state(ctx);
  ctx.io.out(`${shown(ctx, effectiveValue(file, profileName, key))}\n`);
}

export async function runConfigSet(ctx: Context, name: string, value: string): Promise<void> {
  const key = configKey(name);
  if (isGlobal(key)) {
    const setting = GLOBAL_CONFIG_KEYS[key];
    const parsed = setting.parse(value);
    const store = await ctx.store();
    // A default profile that does not exist would make every command fail: refuse it, naming those that do.
    const profiles = Object.keys(store.read().profiles ?? {}).sort();
    if (!profiles.includes(parsed)) {
      throw usageError(
        `there is no profile ${JSON.stringify(parsed)}: ${profiles.length ? `the profiles are ${profiles.join(', ')}` : 'there are no profiles yet'}; create one with \`gymctl auth login --profile ${parsed}\``,
      );
    }
    await store.update((file) => ({ ...file, [setting.field]: parsed }));
    return;
  }
  const setting = CONFIG_KEYS[key];
  const parsed = setting.parse(value, ctx.flags.allowHttp);
  const { store, profileName } = await state(ctx);
  if (key === 'key-store') await checkKeyStoreChange(ctx, profileName, parsed as KeyStore);
  await store.updateProfile(profileName, (profile) => ({ ...profile, [setting.field]: parsed }));
}

/**
 * `key-store` says where the profile's key is, and where its next login
 * puts it: it changes only while no key is kept in the other place, since
 * moving a key is `auth login`'s (never a silent loss or a stray copy).
 */
async function checkKeyStoreChange(ctx: Context, profileName: string, next: KeyStore): Promise<void> {
  const profile = (await ctx.store()).profile(profileName);
  const current = profile?.keyStore ?? 'config';
  if (next === current) return;
  const held = current === 'config' ? profile?.apiKey !== undefined : (await ctx.keyringKey(profileName)) !== undefined;
  if (held) {
    throw usageError(
      `profile "${profileName}" keeps its key in ${current === 'config' ? 'the config file' : 'the system keyring'}: move it with \`gymctl auth login ${next === 'keyring' ? '--keyring' : '--no-keyring'}\`, or forget it first with \`gymctl auth logout\``,
    );
  }
}

export async function runConfigUnset(ctx: Context, name: string): Promise<void> {
  const key = configKey(name);
  const { store, file, profileName } = await state(ctx);
  if (isGlobal(key)) {
    const { field } = GLOBAL_CONFIG_KEYS[key];
    if (file[field] === undefined) return;
    await store.update(({ [field]: _removed, ...rest }) => rest);
    return;
  }
  const { field } = CONFIG_KEYS[key];
  if (file.profiles?.[profileName]?.[field] === undefined) return;
  if (key === 'key-store') await checkKeyStoreChange(ctx, profileName, 'config');
  await store.updateProfile(profileName, ({ [field]: _removed, ...rest }) => rest);
}

export async function runConfigPath(ctx: Context): Promise<void> {
  ctx.io.out(`${(await ctx.store()).path}\n`);
}
