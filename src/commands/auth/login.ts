/** `gymctl auth login`: checks a key with the API, then stores it for the profile (config file or system keyring). */
import { FailureWithFix, toFailure, usageError } from '../../failures.js';
import { type GlobalFlags, maskKey } from '../../config/settings.js';
import type { Factory } from '../../factory.js';
import { KEYRING_MISSING, keyringWayIn } from '../../keyring/protocol.js';
import { keyringStore } from '../../keyring/stores.js';
import { confirm, promptHidden, readStdin } from '../../terminal/prompt.js';
import { academyList, dropCachedAnswers, keyName, ownerLine } from './words.js';

export type LoginDeps = Pick<Factory, 'io' | 'env' | 'signal' | 'settings' | 'config' | 'keyring' | 'makeClient'>;

export interface LoginFlags extends GlobalFlags {
  withKey?: boolean;
  /** --keyring (true) or --no-keyring (false); else where the profile keeps its key now. */
  keyring?: boolean;
}

/** A word as a POSIX shell reads it back: as it is when it is plain, else in single quotes. */
const shellWord = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/** The login the user ran, with --with-key (or without, for a prompt): the flags they gave kept (there is no flag for the key, so it is never in it). */
function loginCommand(options: LoginFlags, withKey = true): string {
  const words = ['gymctl', 'auth', 'login', ...(withKey ? ['--with-key'] : [])];
  if (options.keyring !== undefined) words.push(options.keyring ? '--keyring' : '--no-keyring');
  if (options.profile !== undefined) words.push('--profile', shellWord(options.profile));
  if (options.baseUrl !== undefined) words.push('--base-url', shellWord(options.baseUrl));
  if (options.allowHttp) words.push('--allow-http');
  if (options.timeout !== undefined) words.push('--timeout', shellWord(options.timeout));
  if (options.retries !== undefined) words.push('--retries', shellWord(options.retries));
  return words.join(' ');
}

async function readKey(f: LoginDeps, options: LoginFlags): Promise<string> {
  // At a terminal, --with-key too reads the key hidden: a pasted key is never shown on the screen.
  const text = f.io.stdinIsTTY ? await promptHidden(f.io, 'Paste your API key (input is hidden): ', f.signal) : await readStdin(f.io);
  const key = text.trim();
  if (key === '') {
    const piped = `\`echo "$KEY" | ${loginCommand(options)}\``;
    throw usageError(
      f.io.stdinIsTTY
        ? `no API key was given: paste it at the prompt, or pipe it in (${piped})`
        : `no API key was given on stdin: pipe it in (${piped}, or \`< keyfile\`), or run \`${loginCommand(options, false)}\` at a terminal to paste it at a hidden prompt`,
    );
  }
  return key;
}

export async function runLogin(f: LoginDeps, options: LoginFlags): Promise<void> {
  const settings = await f.settings();
  const profile = settings.profile.value;
  if (!settings.baseUrl) throw usageError('no API base URL: pass --base-url URL (it is stored with the key) or set GYMCTL_BASE_URL');
  // How the key will be read is a usage question, answered before anything else is asked of the system.
  if (!options.withKey && !f.io.stdinIsTTY)
    throw usageError(`stdin is not a terminal, so there is no prompt: add --with-key to read the key from stdin (\`${loginCommand(options)} < keyfile\`)`);
  if (f.io.stdinIsTTY && f.env.GYMCTL_NO_INPUT) throw usageError(`GYMCTL_NO_INPUT is set, so there is no prompt: pipe the key in (\`${loginCommand(options)} < keyfile\`)`);
  const current = f.config().profile(profile);
  // A config folder that is not the user's own (root with another user's HOME) is refused before the key is asked for or stored anywhere.
  f.config().checkWritable();
  const inKeyring = current?.keyStore === 'keyring';
  const toKeyring = options.keyring ?? inKeyring;
  // The key this login replaces, if the keyring can say (the login itself reports a keyring that cannot be used).
  const previous = current?.apiKey ?? (inKeyring ? (await f.keyring.read(profile).catch(() => undefined))?.value : undefined);
  // On a terminal, replacing a stored key is asked first, as gh asks.
  if (previous && !options.withKey && f.io.stdinIsTTY) {
    const replace = await confirm(f.io, `Profile "${profile}" already has a key (${maskKey(previous)}). Replace it? [y/N] `, f.signal);
    if (!replace) {
      f.io.err(`Kept the stored key of profile "${profile}".\n`);
      return;
    }
  }
  const keyring = toKeyring || inKeyring ? await import('../../keyring/client.js') : undefined;
  const keyringOptions = { env: f.env, signal: f.signal };
  // A keyring that cannot take the key says so before the key is pasted, not after.
  if (toKeyring) {
    await keyring!.readKeyringKey(profile, keyringOptions).catch((error: unknown) => {
      const failure = toFailure(error);
      const message = `${failure.message}; the key was not asked for, and nothing was stored`;
      if (!(failure instanceof FailureWithFix)) throw failure.with({ message });
      // The keyring's own fix speaks of a profile that keeps its key there; this login has stored nothing yet.
      const reach = failure.message.startsWith(KEYRING_MISSING) ? `${keyringWayIn(failure.message)} to use ${keyringStore().name}` : keyringStore().fix;
      throw new FailureWithFix(failure.kind, message, [
        'To go on, either:',
        `- ${reach}, and log in again, or`,
        `- log in with --no-keyring, to keep the key in the config file (readable by you alone): ${loginCommand({ ...options, keyring: false })}`,
      ]);
    });
  }
  const key = await readKey(f, options);
  const client = await f.makeClient(settings.baseUrl.value, key);
  const me = await client.getMe().catch((error: unknown) => {
    // A key that could not be checked is not stored: say what the profile keeps instead.
    const failure = toFailure(error);
    if (failure.kind === 'aborted' || f.signal.aborted) throw error;
    const kept = previous
      ? `, and profile "${profile}" keeps its stored key (${maskKey(previous)})`
      : inKeyring
        ? `, and the system keyring keeps what profile "${profile}" had`
        : ` (profile "${profile}" has no stored key)`;
    throw failure.with({ message: `${failure.message}; the key was not stored${kept}` });
  });
  const store = f.config();
  // A base URL given as a flag is the server this key belongs to: keep it with the key.
  const storeBaseUrl = settings.baseUrl.source === 'flag' ? settings.baseUrl.value : undefined;
  // Into the keyring first: if it cannot take the key, the config file is left as it was.
  if (toKeyring) await keyring!.storeKeyringKey(profile, key, keyringOptions);
  await store.updateProfile(profile, ({ apiKey: _old, keyStore: _where, ...rest }) => ({
    ...rest,
    ...(toKeyring ? { keyStore: 'keyring' as const } : { apiKey: key }),
    ...(storeBaseUrl ? { baseUrl: storeBaseUrl } : {}),
  }));
  f.io.err(`Logged in to ${settings.baseUrl.value} as ${ownerLine(me)} (profile "${profile}").\n`);
  f.io.err(`Key ${keyName(me)} sees ${academyList(me.academyIds)}.\n`);
  f.io.err(toKeyring ? `Saved to the system keyring (service "gymctl", account "${profile}"); settings in ${store.path}.\n` : `Saved to ${store.path}.\n`);
  // A key replaced by another is forgotten: the answers cached for it go too.
  if (previous && previous.trim() !== key) await dropCachedAnswers(f, previous);
  if (inKeyring && !toKeyring) {
    // Moved to the file: the keyring's copy goes, or the user is told it stayed.
    await keyring!.deleteKeyringKey(profile, keyringOptions).then(
      () => f.io.err('Removed the key from the system keyring.\n'),
      (error: unknown) => f.io.err(`gymctl: warning: the old key could not be removed from the system keyring: ${toFailure(error).message}\n`),
    );
  }
  if (f.env.GYMCTL_API_KEY) f.io.err('Note: GYMCTL_API_KEY is set and takes precedence over the stored key.\n');
}
