/** `gymctl auth logout`: forgets the profile's stored key (config file or system keyring); other settings stay. */
import { checkProfileExists } from '../../config/settings.js';
import type { Factory } from '../../factory.js';
import { dropCachedAnswers } from './words.js';

export type LogoutDeps = Pick<Factory, 'io' | 'env' | 'signal' | 'config' | 'profileName'>;

export async function runLogout(f: LogoutDeps): Promise<void> {
  const store = f.config();
  const name = f.profileName();
  checkProfileExists(name, store.read());
  const profile = name.value;
  const stored = store.profile(profile);
  if (stored?.keyStore === 'keyring') {
    // The profile keeps the keyring as where its next key goes.
    const { deleteKeyringKey, readKeyringKey } = await import('../../keyring/client.js');
    const keyringOptions = { env: f.env, signal: f.signal };
    const key = await readKeyringKey(profile, keyringOptions);
    const removed = await deleteKeyringKey(profile, keyringOptions);
    f.io.err(removed ? `Removed the API key of profile "${profile}" from the system keyring.\n` : `No API key is stored for profile "${profile}" in the system keyring.\n`);
    if (key) await dropCachedAnswers(f, key);
  } else if (stored?.apiKey === undefined) {
    f.io.err(`No API key is stored for profile "${profile}".\n`);
  } else {
    await store.updateProfile(profile, ({ apiKey: _removed, ...rest }) => rest);
    f.io.err(`Removed the API key of profile "${profile}" from ${store.path}.\n`);
    await dropCachedAnswers(f, stored.apiKey);
  }
  // Copies of the file left by a writer that was killed mid-write may hold a key: they go too.
  if (stored?.keyStore === 'keyring' || stored?.apiKey === undefined) await store.sweep();
  if (f.env.GYMCTL_API_KEY) f.io.err('Note: GYMCTL_API_KEY is still set in the environment.\n');
}
