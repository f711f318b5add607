/** `gymctl auth login | status | logout`: the key of the active profile. */
import { GymctlError } from '../../api/errors.js';
import { AlreadyReported, toFailure, usageError } from '../../failures.js';
import { maskKey, parseBaseUrl, type Setting } from '../../config/settings.js';
import type { Factory } from '../../factory.js';
import { printDocument } from '../../output/document.js';

/** What the auth commands use of the factory. */
export type AuthDeps = Pick<Factory, 'io' | 'env' | 'signal' | 'flags' | 'config' | 'profileName' | 'settings' | 'output' | 'printJson' | 'keyring' | 'makeClient' | 'client'>;
import { confirm, promptHidden, readStdin } from '../../terminal/prompt.js';
import { stringifyExact } from '../../json/exact.js';
import { labelledText, recordsText, stdoutTerminal } from '../../output/human.js';
import { sanitizeLine } from '../../output/sanitize.js';
import type { Column } from '../../output/tsv.js';
import type { Id } from '../../api/schemas.js';
import type { ApiKey } from '../../operations/index.js';

export interface LoginFlags {
  withKey?: boolean;
  /** --keyring (true) or --no-keyring (false); else where the profile keeps its key now. */
  keyring?: boolean;
}

const describeSource = (setting: Setting<unknown>, configPath: string) =>
  setting.source === 'env' ? `from ${setting.origin}` : setting.source === 'config' ? `from ${configPath}` : `from ${setting.origin ?? setting.source}`;

/** `"Front desk" (id 101)`, or `id 101` for a key with no name. */
const keyName = (key: ApiKey) => (key.name ? `"${sanitizeLine(key.name)}" (id ${key.id})` : `id ${key.id}`);

const academyList = (ids: readonly Id[]) => (ids.length === 0 ? 'no academies' : `academies ${ids.join(', ')}`);

function ownerLine(key: ApiKey): string {
  const name = key.user?.name ? sanitizeLine(key.user.name) : 'an unnamed user';
  return key.user?.email ? `${name} <${sanitizeLine(key.user.email)}>` : name;
}

async function readKey(f: AuthDeps, options: LoginFlags): Promise<string> {
  let text: string;
  if (options.withKey) {
    if (f.io.stdinIsTTY) f.io.err('Reading the API key from stdin: paste it, then press Enter and Ctrl-D.\n');
    text = await readStdin(f.io);
  } else if (f.io.stdinIsTTY) {
    text = await promptHidden(f.io, 'Paste your API key (input is hidden): ', f.signal);
  } else {
    throw usageError('stdin is not a terminal, so there is no prompt: pipe the key in with `gymctl auth login --with-key < keyfile`');
  }
  const key = text.trim();
  if (key === '') throw usageError('no API key was given');
  return key;
}

export async function runLogin(f: AuthDeps, options: LoginFlags): Promise<void> {
  const settings = await f.settings();
  const profile = settings.profile.value;
  if (!settings.baseUrl) {
    throw usageError('no API base URL: pass --base-url URL (it is stored with the key) or set GYMCTL_BASE_URL');
  }
  const current = f.config().profile(profile);
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
      throw failure.with({ message: `${failure.message}; the key was not asked for, and nothing was stored` });
    });
  }
  const key = await readKey(f, options);
  const client = await f.makeClient(settings.baseUrl.value, key);
  const me = await client.getMe();
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
  const { io } = f;
  io.err(`Logged in to ${settings.baseUrl.value} as ${ownerLine(me)} (profile "${profile}").\n`);
  io.err(`Key ${keyName(me)} sees ${academyList(me.academyIds)}.\n`);
  io.err(toKeyring ? `Saved to the system keyring (service "gymctl", account "${profile}"); settings in ${store.path}.\n` : `Saved to ${store.path}.\n`);
  // A key replaced by another is forgotten: the answers cached for it go too.
  if (previous && previous.trim() !== key) await dropCachedAnswers(f, store.dir, previous);
  if (inKeyring && !toKeyring) {
    // Moved to the file: the keyring's copy goes, or the user is told it stayed.
    await keyring!.deleteKeyringKey(profile, keyringOptions).then(
      () => io.err('Removed the key from the system keyring.\n'),
      (error: unknown) => io.err(`gymctl: warning: the old key could not be removed from the system keyring: ${toFailure(error).message}\n`),
    );
  }
  if (f.env.GYMCTL_API_KEY) io.err('Note: GYMCTL_API_KEY is set and takes precedence over the stored key.\n');
}

export interface StatusFlags {
  /** Every stored profile, each checked with its own key and base URL. */
  all?: boolean;
}

interface ProfileStatus {
  profile: string;
  active: boolean;
  baseUrl: string | null;
  key: string | null;
  /** Where the key is kept: the config file or the system keyring. */
  keyStore: 'config' | 'keyring';
  status: 'ok' | 'no key' | 'no base URL' | 'failed';
  owner: ApiKey['user'] | null;
  error: { message: string; kind: string; status: number | null } | null;
}

/** What `auth status --all` shows of each profile; names and base URLs come from the file, which may hold anything, and are sanitised as every cell is. */
const STATUS_COLUMNS: Column<ProfileStatus>[] = [
  { key: 'active', label: 'Active', value: (row) => row.active, display: (row) => (row.active ? '*' : ' ') },
  { key: 'profile', label: 'Profile', value: (row) => row.profile },
  { key: 'baseUrl', label: 'Base URL', value: (row) => row.baseUrl },
  { key: 'key', label: 'Key', value: (row) => row.key, display: (row) => (row.key ? `${row.key}${row.keyStore === 'keyring' ? ' (keyring)' : ''}` : undefined) },
  { key: 'keyStore', label: 'Kept in', value: (row) => row.keyStore },
  {
    key: 'status',
    label: 'Status',
    value: ({ status, owner, error }) =>
      status === 'ok' ? (owner ? `ok: ${ownerLine({ user: owner } as ApiKey)}` : 'ok') : status === 'failed' ? `failed: ${error!.message}` : status,
  },
];

/**
 * `auth status --all`: every stored profile, from the file alone (the
 * environment's key and base URL would stand in for every one of them),
 * checked at once. Fails with the first failure's kind, in profile order.
 */
async function runStatusAll(f: AuthDeps): Promise<void> {
  const store = f.config();
  const profiles = store.read().profiles ?? {};
  const active = f.profileName().value;
  const names = Object.keys(profiles).sort();
  if (names.length === 0) throw new GymctlError('unauthorized', `no profiles in ${store.path}: run \`gymctl auth login\``);
  const results = await Promise.all(
    names.map(async (name): Promise<{ row: ProfileStatus; failure?: GymctlError }> => {
      const profile = profiles[name]!;
      const keyStore = profile.keyStore ?? 'config';
      const row: ProfileStatus = { profile: name, active: name === active, baseUrl: profile.baseUrl ?? null, key: null, keyStore, status: 'ok', owner: null, error: null };
      try {
        const apiKey = keyStore === 'keyring' ? (await f.keyring.read(name))?.value : profile.apiKey;
        if (!apiKey) return { row: { ...row, status: 'no key' } };
        row.key = maskKey(apiKey);
        if (!profile.baseUrl) return { row: { ...row, status: 'no base URL' } };
        // The stored base URL passes the same checks as any other (https off loopback, no credentials).
        const baseUrl = parseBaseUrl(profile.baseUrl, `profile "${name}"`, f.flags.allowHttp);
        const client = await f.makeClient(baseUrl, apiKey);
        return { row: { ...row, owner: (await client.getMe()).user ?? null } };
      } catch (error) {
        const failure = toFailure(error);
        return { row: { ...row, status: 'failed', error: { message: failure.message, kind: failure.kind, status: failure.status ?? null } }, failure };
      }
    }),
  );
  const rows = results.map((r) => r.row);
  await printDocument(
    f,
    () => `${stringifyExact(rows, 2)}\n`,
    () => recordsText(f.io, STATUS_COLUMNS, rows),
  );
  const failure = results.find((r) => r.failure)?.failure;
  if (failure) throw new AlreadyReported(failure.kind);
}

export async function runStatus(f: AuthDeps, options: StatusFlags): Promise<void> {
  await f.output(); // --jq and the format are checked before anything is sent
  if (options.all) return runStatusAll(f);
  const { client, settings, baseUrl, apiKey } = await f.client();
  const store = f.config();
  const profile = settings.profile.value;
  const keyShown = `${maskKey(apiKey.value)} ${describeSource(apiKey, store.path)}`;
  let me: ApiKey;
  try {
    me = await client.getMe();
  } catch (error) {
    if (error instanceof GymctlError && error.kind === 'unauthorized') {
      // What would help find the bad key, on stderr: stdout stays empty on failure.
      const stderr = { isTTY: f.io.stderrIsTTY, color: false };
      f.io.err(
        await labelledText(
          [
            ['Profile', profile],
            ['Base URL', `${baseUrl.value} (${describeSource(baseUrl, store.path)})`],
            ['Key', keyShown],
          ],
          stderr,
        ),
      );
      throw error.with({ message: `the server refused the API key ${keyShown} (profile "${profile}")` });
    }
    throw error;
  }
  const status = {
    profile,
    baseUrl: baseUrl.value,
    baseUrlSource: baseUrl.source,
    key: maskKey(apiKey.value),
    keySource: apiKey.source,
    keyId: me.id,
    keyName: me.name ?? null,
    academyIds: me.academyIds,
    user: me.user ?? null,
  };
  const rows: Array<[string, string]> = [
    ['Profile', profile],
    ['Base URL', `${baseUrl.value} (${describeSource(baseUrl, store.path)})`],
    ['Key', keyShown],
    ['Key name', me.name ? `${me.name} (id ${me.id})` : `(no name) (id ${me.id})`],
    ['Owner', ownerLine(me)],
    ['Academies', me.academyIds.length ? me.academyIds.join(', ') : 'none'],
  ];
  await printDocument(
    f,
    () => `${stringifyExact(status, 2)}\n`,
    () => labelledText(rows, stdoutTerminal(f.io)),
  );
}

/** The answers --cache kept for a key that is being forgotten go with it. */
async function dropCachedAnswers(f: AuthDeps, configDir: string, key: string): Promise<void> {
  const { dropKeyEntries } = await import('../../cache/store.js');
  const removed = dropKeyEntries(f.env, configDir, key.trim());
  if (removed > 0) f.io.err(`Removed ${removed} cached answer${removed === 1 ? '' : 's'} of that key.\n`);
}

export async function runLogout(f: AuthDeps): Promise<void> {
  const profile = f.profileName().value;
  const store = f.config();
  const stored = store.profile(profile);
  if (stored?.keyStore === 'keyring') {
    // The profile keeps the keyring as where its next key goes.
    const { deleteKeyringKey, readKeyringKey } = await import('../../keyring/client.js');
    const keyringOptions = { env: f.env, signal: f.signal };
    const key = await readKeyringKey(profile, keyringOptions);
    const removed = await deleteKeyringKey(profile, keyringOptions);
    f.io.err(removed ? `Removed the API key of profile "${profile}" from the system keyring.\n` : `No API key is stored for profile "${profile}" in the system keyring.\n`);
    if (key) await dropCachedAnswers(f, store.dir, key);
  } else if (stored?.apiKey === undefined) {
    f.io.err(`No API key is stored for profile "${profile}".\n`);
  } else {
    await store.updateProfile(profile, ({ apiKey: _removed, ...rest }) => rest);
    f.io.err(`Removed the API key of profile "${profile}" from ${store.path}.\n`);
    await dropCachedAnswers(f, store.dir, stored.apiKey);
  }
  // Copies of the file left by a writer that was killed mid-write may hold a key: they go too.
  if (stored?.keyStore === 'keyring' || stored?.apiKey === undefined) await store.sweep();
  if (f.env.GYMCTL_API_KEY) f.io.err('Note: GYMCTL_API_KEY is still set in the environment.\n');
}
