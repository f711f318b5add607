/** Each platform's keyring, as @napi-rs/keyring uses it, named as its users know it, with where to look and what to do. */

/**
 * A keyring: its `name` (after "the system keyring"), where a user can `see` what it holds, a sentence that unlocks it
 * (said to be locked), where it can be reached (`reach`, for "run gymctl …" when it is unavailable), and doctor's `fix`
 * for one that did not answer (before "or gymctl auth login --no-keyring").
 */
export type KeyringStore = Readonly<Record<'name' | 'see' | 'unlock' | 'reach' | 'fix', string>>;

const WINDOWS: KeyringStore = {
  name: 'the Windows Credential Manager',
  see: 'Control Panel > Credential Manager > Windows Credentials, or `cmdkey /list`',
  unlock: 'Sign in to Windows as the user who stored the key, and try again.',
  reach: 'in your own Windows sign-in (a service, or SSH signed in with a key, has no credential store)',
  fix: 'reach the Credential Manager from your own Windows sign-in (`cmdkey /list`)',
};

const MACOS: KeyringStore = {
  name: 'the login keychain',
  see: 'Keychain Access, or `security find-generic-password -s gymctl`',
  unlock: 'Unlock it (Keychain Access, or `security unlock-keychain login.keychain`), and try again.',
  reach: 'in your macOS login session (over SSH, run `security unlock-keychain login.keychain` first)',
  fix: 'unlock the login keychain (`security unlock-keychain login.keychain`)',
};

const SECRET_SERVICE: KeyringStore = {
  name: 'the Secret Service',
  see: 'Passwords and Keys (Seahorse), KeePassXC, or `secret-tool search service gymctl`',
  unlock: 'Unlock it (log in to your desktop session, or run `gnome-keyring-daemon --unlock`), and try again.',
  reach: 'where a Secret Service is reachable (a desktop session; gnome-keyring or KeePassXC on D-Bus)',
  fix: 'unlock or reach the Secret Service (gnome-keyring or KeePassXC on D-Bus)',
};

/** The keyring @napi-rs/keyring uses on `platform`. */
export const keyringStore = (platform: NodeJS.Platform = process.platform): KeyringStore => (platform === 'win32' ? WINDOWS : platform === 'darwin' ? MACOS : SECRET_SERVICE);
