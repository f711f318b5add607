/** `gymctl config list | get | set | unset | path`: settings of the active profile. */
import { CONFIG_KEYS, configKey, type ConfigKey } from '../config/settings.js';
import type { Profile } from '../config/schema.js';
import type { Context } from '../context.js';

/** The stored value, else the default, else undefined. */
function effectiveValue(profile: Profile | undefined, key: ConfigKey): unknown {
  const setting = CONFIG_KEYS[key];
  return profile?.[setting.field] ?? ('fallback' in setting ? setting.fallback : undefined);
}

function storedOrFallback(profile: Profile | undefined, key: ConfigKey): string {
  const value = effectiveValue(profile, key);
  return value === undefined ? '' : String(value);
}

async function activeProfile(ctx: Context) {
  const name = ctx.profileName().value;
  const store = await ctx.store();
  return { name, store, profile: store.profile(name) };
}

export async function runConfigList(ctx: Context, options: { json?: boolean }): Promise<void> {
  const { profile } = await activeProfile(ctx);
  const keys = Object.keys(CONFIG_KEYS) as ConfigKey[];
  if (options.json || ctx.flags.json) {
    // The same values as the text form, null where there is none.
    const values = Object.fromEntries(keys.map((key) => [key, effectiveValue(profile, key) ?? null]));
    ctx.io.out(`${JSON.stringify(values, null, 2)}\n`);
    return;
  }
  ctx.io.out(keys.map((key) => `${key}=${storedOrFallback(profile, key)}\n`).join(''));
}

export async function runConfigGet(ctx: Context, name: string): Promise<void> {
  const key = configKey(name);
  const { profile } = await activeProfile(ctx);
  ctx.io.out(`${storedOrFallback(profile, key)}\n`);
}

export async function runConfigSet(ctx: Context, name: string, value: string): Promise<void> {
  const key = configKey(name);
  const parsed = CONFIG_KEYS[key].parse(value, ctx.flags.allowHttp);
  const { name: profileName, store } = await activeProfile(ctx);
  await store.updateProfile(profileName, (profile) => ({ ...profile, [CONFIG_KEYS[key].field]: parsed }));
}

export async function runConfigUnset(ctx: Context, name: string): Promise<void> {
  const key = configKey(name);
  const { name: profileName, store, profile } = await activeProfile(ctx);
  const field = CONFIG_KEYS[key].field;
  if (profile?.[field] === undefined) return;
  await store.updateProfile(profileName, ({ [field]: _removed, ...rest }) => rest);
}

export async function runConfigPath(ctx: Context): Promise<void> {
  ctx.io.out(`${(await ctx.store()).path}\n`);
}
