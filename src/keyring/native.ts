/** The native keyring module, an optional dependency that may be absent: said as such, never a stack trace. */
import { KEYRING_BROKEN } from './protocol.js';

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
const firstLine = (error: unknown) => (error instanceof Error ? error.message : String(error)).split(/\r?\n/)[0]!.trim();

/** A file that is not there (napi-rs's chain keeps only the messages): each place napi-rs looked for a binary that is absent. */
const absent = (error: unknown) => /^(Cannot find (module|package) |Unsupported architecture )/.test(firstLine(error));

/** An error and its causes, outermost first (napi-rs chains what each place it looked threw, the last place outermost). */
function chainOf(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let link = error; link instanceof Error && !chain.includes(link); link = link.cause) chain.push(link);
  return chain;
}

/** Windows could not load a DLL the binary needs: most often the Visual C++ runtime, which Windows does not always have. */
const missingDll = (error: unknown, platform: string) =>
  /The specified module could not be found/i.test(firstLine(error)) || (platform.startsWith('win32') && codeOf(error) === 'ERR_DLOPEN_FAILED');

/** Why the module did not load, from what `require` threw: not installed, or installed and failing to load, and why. */
export function missingReason(error: unknown, platform = `${process.platform}-${process.arch}`): string {
  const message = error instanceof Error ? error.message : String(error);
  const notFound = ['MODULE_NOT_FOUND', 'ERR_MODULE_NOT_FOUND'].includes(codeOf(error) ?? '');
  // The package itself is absent: left out by --omit=optional, or by a failed optional install.
  if (notFound && /['"]@napi-rs\/keyring['"]/.test(message)) return '@napi-rs/keyring is not installed';
  // The package is there; napi-rs found no binary for this platform (its words), unless one it found failed to load.
  const napi = /^Cannot find native binding|^Failed to load native binding/.test(message);
  const failed = napi ? chainOf((error as Error).cause).find((link) => !absent(link)) : error;
  if (failed === undefined) return `@napi-rs/keyring has no native binary installed for ${platform}`;
  const dll = missingDll(failed, platform) ? ' (a DLL it needs is missing: install the Microsoft Visual C++ Redistributable)' : '';
  return `${KEYRING_BROKEN}: ${firstLine(failed)}${dll}`;
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

/**
 * The node_modules the keyring module may come from: the outermost one above the agent (npm's hoisting, pnpm's store),
 * else those beside the agent and its folder. Never further up: Node's search reaches C:\node_modules, which any user may make.
 */
export function keyringRoots(agentFile: string, path: typeof import('node:path') = process.getBuiltinModule('node:path')): string[] {
  // The folder the agent sits in, and each folder above it, nearest first.
  const above: string[] = [];
  for (let folder = path.dirname(agentFile); above.at(-1) !== folder; folder = path.dirname(folder)) above.push(folder);
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
