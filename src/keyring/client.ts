/** The system keyring (`auth login --keyring`), each use through the agent (agent.ts), killed if it does not answer in time. */
import type { GymctlError } from '../api/errors.js';
import { DEFAULT_PROFILE } from '../config/settings.js';
import { FailureWithFix } from '../failures.js';
import { keyringStore } from './stores.js';
import { KEYRING_MISSING, type KeyringAnswer, type KeyringRequest, type KeyringTrouble, keyringWayIn } from './protocol.js';

declare const __KEYRING_AGENT__: string | undefined;

/** Long enough for a healthy daemon (tens of milliseconds), short enough for a script to move on. */
const KEYRING_TIMEOUT_MS = 5000;
/** Where the keyring may ask for its password in a window (a desktop, macOS, Windows): time to type it. */
const KEYRING_PROMPT_TIMEOUT_MS = 60_000;

function agentPath(): string {
  const url = typeof __KEYRING_AGENT__ === 'string' ? new URL(__KEYRING_AGENT__, import.meta.url) : new URL('../../dist/keyring-agent.cjs', import.meta.url);
  return process.getBuiltinModule('node:url').fileURLToPath(url);
}

function timeoutFor(env: NodeJS.ProcessEnv): number {
  const mayPrompt = process.platform !== 'linux' || Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
  return mayPrompt ? KEYRING_PROMPT_TIMEOUT_MS : KEYRING_TIMEOUT_MS;
}

type Spawn = (
  command: string,
  args: readonly string[],
  options: import('node:child_process').SpawnOptionsWithoutStdio,
) => import('node:child_process').ChildProcessWithoutNullStreams;

/** How the agent, the one child process gymctl starts, is spawned: a seam for tests. */
export const agentProcess: { spawn: Spawn } = {
  spawn: (command, args, options) => process.getBuiltinModule('node:child_process').spawn(command, args, options),
};

export interface KeyringOptions {
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

/** The login that keeps the profile's key in the config file, as it works when typed: for this profile. */
const loginWithoutKeyring = (profile: string) => `gymctl auth login --no-keyring${profile === DEFAULT_PROFILE ? '' : ` --profile ${profile}`}`;

/** A keyring that cannot be used, said as such (never "no key"), with the ways on, each a line, naming the platform's keyring. */
export function keyringError(trouble: KeyringTrouble, detail: string, request: Pick<KeyringRequest, 'op' | 'account'>, platform: NodeJS.Platform = process.platform): GymctlError {
  const reason = detail.replace(/\s+/g, ' ').trim();
  const store = keyringStore(platform);
  const profile = `profile "${request.account}"`;
  const keeps = [`${profile[0]!.toUpperCase()}${profile.slice(1)} keeps its key in the system keyring, ${store.name}.`, `See it in ${store.see}.`];
  if (trouble === 'missing') return missingError(reason, keeps, request.account);
  if (request.op === 'set') {
    return new FailureWithFix(
      'unauthorized',
      `keyring ${trouble}: ${reason}; the key was not stored, and ${profile} is unchanged`,
      trouble === 'locked'
        ? [store.unlock]
        : [
            `${store.name[0]!.toUpperCase()}${store.name.slice(1)} could not take it. To go on, either:`,
            '- log in without --keyring, to keep the key in the config file (readable by you alone), or',
            `- run gymctl ${store.reach}.`,
          ],
    );
  }
  return new FailureWithFix(
    'unauthorized',
    `keyring ${trouble}: ${reason}`,
    trouble === 'locked'
      ? [...keeps, store.unlock, 'Or set GYMCTL_API_KEY.']
      : [...keeps, 'To go on, either:', `- run gymctl ${store.reach},`, `- move the key to the config file: ${loginWithoutKeyring(request.account)}, or`, '- set GYMCTL_API_KEY.'],
  );
}

/** The native module (an optional dependency) is not installed, or does not load: no keyring here, whatever the desktop offers. */
function missingError(reason: string, keeps: readonly string[], profile: string): GymctlError {
  return new FailureWithFix('unauthorized', `${KEYRING_MISSING} (${reason})`, [
    ...keeps,
    'To go on, either:',
    `- ${keyringWayIn(reason)},`,
    `- keep a key in the config file instead: ${loginWithoutKeyring(profile)}, or`,
    '- set GYMCTL_API_KEY.',
  ]);
}

async function ask(request: KeyringRequest, options: KeyringOptions): Promise<KeyringAnswer> {
  const { GYMCTL_API_KEY: _never, ...env } = options.env;
  // windowsHide: started from a program with no console (`gymctl mcp`), Windows would flash a console window at each use.
  const child = agentProcess.spawn(process.execPath, [agentPath()], { env, windowsHide: true });
  const limit = timeoutFor(options.env);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.on('error', () => {});
  child.stdin.end(JSON.stringify(request));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, limit);
  const stop = () => child.kill('SIGKILL');
  options.signal?.addEventListener('abort', stop, { once: true });
  try {
    await new Promise<void>((resolve) => {
      child.on('close', () => resolve());
      child.on('error', () => resolve());
    });
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', stop);
  }
  options.signal?.throwIfAborted();
  if (timedOut) return { ok: false, trouble: 'unavailable', message: `the keyring did not answer within ${limit / 1000} s (is its daemon hung?)` };
  try {
    return JSON.parse(stdout) as KeyringAnswer;
  } catch {
    const last = stderr.trim().split('\n').at(-1);
    return { ok: false, trouble: 'unavailable', message: `the keyring agent failed${last ? `: ${last}` : ''}` };
  }
}

/** The native library's reason, in words that say what to look at. */
export function explain(message: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string {
  if (platform === 'linux' && !env.DBUS_SESSION_BUS_ADDRESS && /dbus/i.test(message)) {
    return 'no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set, as on most servers)';
  }
  // ERROR_NO_SUCH_LOGON_SESSION: a sign-in with no credential store of its own (SSH with a key, a service).
  if (platform === 'win32' && /logon session/i.test(message)) {
    return 'the Credential Manager has no store for this sign-in (as over SSH signed in with a key, or for a service)';
  }
  if (/no result found/i.test(message)) return 'the Secret Service has no default keyring to keep keys in';
  return message.replace(/^Couldn't access platform storage: /, '');
}

async function run(request: KeyringRequest, options: KeyringOptions): Promise<string | null> {
  const reply = await ask(request, options);
  if (!reply.ok) throw keyringError(reply.trouble, reply.trouble === 'missing' ? reply.message : explain(reply.message, options.env), request);
  return reply.value;
}

/** The profile's key from the keyring, or undefined when it holds none. */
export async function readKeyringKey(profile: string, options: KeyringOptions): Promise<string | undefined> {
  return (await run({ op: 'get', account: profile }, options)) ?? undefined;
}

export async function storeKeyringKey(profile: string, key: string, options: KeyringOptions): Promise<void> {
  await run({ op: 'set', account: profile, secret: key }, options);
}

/** Removes the profile's key; true if there was one. */
export async function deleteKeyringKey(profile: string, options: KeyringOptions): Promise<boolean> {
  return (await run({ op: 'delete', account: profile }, options)) === 'deleted';
}
