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

/** The folder a path sits in, and each folder above it, nearest first. */
function foldersAbove(file: string, path: typeof import('node:path')): string[] {
  const folders: string[] = [];
  for (let folder = path.dirname(file); folders.at(-1) !== folder; folder = path.dirname(folder)) folders.push(folder);
  return folders;
}

/**
 * The node_modules folders the keyring module may come from, for the agent at `agentFile` (its real path): the one
 * that holds the package gymctl is in (the outermost node_modules above it, so npm's hoisting and pnpm's store both
 * count), or, where it is in none (a clone, the single executable's folder), the one beside the agent and the one
 * beside its folder. Never one further up, nor NODE_PATH's or the home folder's: Node's own search goes up to the
 * root of the drive, where on Windows any user may make C:\node_modules.
 */
export function keyringRoots(agentFile: string, path: typeof import('node:path') = process.getBuiltinModule('node:path')): string[] {
  const above = foldersAbove(agentFile, path);
  const outermost = above.filter((folder) => path.basename(folder) === 'node_modules').at(-1);
  if (outermost) return [outermost];
  return above.slice(0, 2).map((folder) => path.join(folder, 'node_modules'));
}

/**
 * A require for the keyring module and the platform package it loads, resolved as Node does but only from
 * `roots`: what Node would find anywhere else counts as not installed. The check is on the real path.
 */
export function confinedRequire(load: NodeJS.Require, roots: readonly string[], path: typeof import('node:path') = process.getBuiltinModule('node:path')): (id: string) => unknown {
  const Module = process.getBuiltinModule('node:module') as unknown as { _resolveFilename(request: string, parent: unknown, ...rest: unknown[]): string };
  const inside = (file: string) => roots.some((root) => !path.relative(root, file).startsWith('..') && !path.isAbsolute(path.relative(root, file)));
  return (id) => {
    const resolve = Module._resolveFilename;
    Module._resolveFilename = function (request, ...rest) {
      const file = resolve.call(this, request, ...rest);
      if (request.startsWith('@napi-rs/keyring') && !inside(file)) {
        throw Object.assign(new Error(`Cannot find module '${request}' (found only at ${file}, outside gymctl's own node_modules)`), { code: 'MODULE_NOT_FOUND' });
      }
      return file;
    };
    try {
      return load(id);
    } finally {
      Module._resolveFilename = resolve;
    }
  };
}
