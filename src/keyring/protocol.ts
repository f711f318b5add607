/** What gymctl and its keyring agent say to each other, one JSON object each way. */

/** The keyring's service name; the account is the profile's name. */
export const KEYRING_SERVICE = 'gymctl';

export interface KeyringRequest {
  op: 'get' | 'set' | 'delete';
  account: string;
  /** The key, for `set`. */
  secret?: string;
}

/** Why the keyring could not be used; `missing`: the native module is not installed (an optional dependency). */
export type KeyringTrouble = 'unavailable' | 'locked' | 'missing';

/** How every failure of a keyring whose native module is not installed begins. */
export const KEYRING_MISSING = 'the system keyring is not available on this install';

/** The way to have it: the optional dependency, installed (npm installs it unless told not to). */
export const KEYRING_INSTALL = 'install gymctl with its optional dependencies (without --omit=optional)';

/** How the reason begins when the module is installed but did not load (a DLL missing, a damaged binary): installing it again may not help. */
export const KEYRING_BROKEN = '@napi-rs/keyring is installed but could not be loaded';

/** The way to have a keyring that is not available on this install, from the reason it is not. */
export const keyringWayIn = (reason: string) => (reason.includes(KEYRING_BROKEN) ? 'fix what stops it loading (said above), or reinstall gymctl' : KEYRING_INSTALL);

/** `value`: the key for `get` (null when there is none); `'deleted'` or null for `delete`. */
export type KeyringAnswer = { ok: true; value: string | null } | { ok: false; trouble: KeyringTrouble; message: string };
