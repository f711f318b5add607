/**
 * The native keyring module, as the keyring agent loads it. It is an
 * optional dependency: `npm install --omit=optional` leaves it out, and a
 * platform with no prebuilt binary has none. Either way the keyring is not
 * available on this install, which is said as such: never a stack trace.
 */

export interface NativeEntry {
  getPassword(): string | null;
  setPassword(password: string): void;
  deleteCredential(): boolean;
}

export type EntryClass = new (service: string, account: string, options?: { linux?: { store?: 'secret-service' } }) => NativeEntry;

/** The module could not be loaded: `message` says why, in a few words. */
export class NativeModuleMissing extends Error {
  override readonly name = 'NativeModuleMissing';
}

const codeOf = (error: unknown) => (error instanceof Error && 'code' in error ? String(error.code) : undefined);

/** Why the module did not load, from what `require` threw. */
export function missingReason(error: unknown, platform = `${process.platform}-${process.arch}`): string {
  const message = error instanceof Error ? error.message : String(error);
  const notFound = ['MODULE_NOT_FOUND', 'ERR_MODULE_NOT_FOUND'].includes(codeOf(error) ?? '');
  // The package itself is absent: left out by --omit=optional, or by a failed optional install.
  if (notFound && /['"]@napi-rs\/keyring['"]/.test(message)) return '@napi-rs/keyring is not installed';
  // The package is there, its binary for this platform is not (napi-rs says so in these words).
  if (/^Cannot find native binding|^Failed to load native binding/.test(message)) return `@napi-rs/keyring has no native binary installed for ${platform}`;
  return `@napi-rs/keyring could not be loaded: ${message.split('\n')[0]}`;
}

/** The module's Entry class, through `load` (a require from the agent's own file); NativeModuleMissing when it cannot be had. */
export function loadEntry(load: (id: string) => unknown): EntryClass {
  try {
    const { Entry } = load('@napi-rs/keyring') as { Entry?: EntryClass };
    if (typeof Entry !== 'function') throw new Error('it has no Entry class');
    return Entry;
  } catch (error) {
    throw new NativeModuleMissing(missingReason(error));
  }
}
