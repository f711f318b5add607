/** What gymctl and its keyring agent say to each other, one JSON object each way. */

/** The keyring's service name; the account is the profile's name. */
export const KEYRING_SERVICE = 'gymctl';

export interface KeyringRequest {
  op: 'get' | 'set' | 'delete';
  account: string;
  /** The key, for `set`. */
  secret?: string;
}

/** Why the keyring could not be used. */
export type KeyringTrouble = 'unavailable' | 'locked';

/** `value`: the key for `get` (null when there is none); `'deleted'` or null for `delete`. */
export type KeyringAnswer = { ok: true; value: string | null } | { ok: false; trouble: KeyringTrouble; message: string };
