/** The native keyring module, an optional dependency that may be absent: said as such, never a stack trace. */

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

/** The module's Entry class through `load`, or NativeModuleMissing. */
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
 * The node_modules the keyring module may come from: the outermost one above the agent (npm's hoisting, pnpm's store),
 * else those beside the agent and its folder. Never further up: Node's search reaches C:\node_modules, which any user may make.
 */
export function keyringRoots(agentFile: string, path: typeof import('node:path') = process.getBuiltinModule('node:path')): string[] {
  const above = foldersAbove(agentFile, path);
  const outermost = above.filter((folder) => path.basename(folder) === 'node_modules').at(-1);
  if (outermost) return [outermost];
  return above.slice(0, 2).map((folder) => path.join(folder, 'node_modules'));
}

/** A require for the keyring module resolved as Node does, but only from `roots`: found elsewhere, it is not installed. */
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
