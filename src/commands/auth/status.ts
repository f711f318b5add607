/** `gymctl auth status [--all]`: the profile, base URL, masked key, where each comes from, and the key's owner. */
import { GymctlError, usageError } from '../../api/errors.js';
import { AlreadyReported, toFailure } from '../../failures.js';
import { type GlobalFlags, maskKey, parseBaseUrl, resolveFormat } from '../../config/settings.js';
import type { Factory } from '../../factory.js';
import type { ApiKey } from '../../operations/index.js';
import { printDocument } from '../../output/document.js';
import { labelledText, recordsText, stdoutTerminal } from '../../output/human.js';
import type { Column } from '../../output/tsv.js';
import { stringifyExact } from '../../json/exact.js';
import { describeSource, ownerLine } from './words.js';

export type StatusDeps = Pick<Factory, 'io' | 'config' | 'profileName' | 'output' | 'printJson' | 'keyring' | 'makeClient' | 'client'>;

/** `all`: every stored profile, each checked with its own key and base URL. */
type StatusFlags = GlobalFlags & { all?: boolean };

interface ProfileStatus {
  profile: string;
  active: boolean;
  baseUrl: string | null;
  key: string | null;
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
 * `auth status --all`: every stored profile, from the file alone (the environment's key and base URL would stand in for every
 * one), checked at once. Fails with the first failure's kind, in profile order.
 */
async function runStatusAll(f: StatusDeps, options: StatusFlags): Promise<void> {
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
        const baseUrl = parseBaseUrl(profile.baseUrl, `profile "${name}"`, options.allowHttp);
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

export async function runStatus(f: StatusDeps, options: StatusFlags): Promise<void> {
  const { format, jq } = await f.output(); // checked before anything is sent; csv and ndjson (for records) asked for are refused, not ignored
  if (!jq && (format === 'csv' || format === 'ndjson') && resolveFormat(options)) throw usageError(`auth status prints text or JSON, not ${format}: use --json`);
  const insteadOfStored = options.sandbox ? '--sandbox' : options.baseUrl !== undefined ? '--base-url' : undefined;
  if (options.all && insteadOfStored) throw usageError(`--all checks every stored profile with its own base URL and key: it cannot be used with ${insteadOfStored}`);
  if (options.all) return runStatusAll(f, options);
  const { client, settings, baseUrl, apiKey, explain } = await f.client();
  const store = f.config();
  const profile = settings.profile.value;
  const keyShown = `${maskKey(apiKey.value)} ${describeSource(apiKey, store.path)}`;
  const rows: Array<[string, string]> = [
    ['Profile', profile],
    ['Base URL', `${baseUrl.value} (${describeSource(baseUrl, store.path)})`],
    ['Key', keyShown],
  ];
  const me = await client.getMe().catch(async (error: unknown) => {
    if (!(error instanceof GymctlError && error.kind === 'unauthorized')) throw explain(error);
    // What would help find the bad key, on stderr: stdout stays empty on failure.
    f.io.err(await labelledText(rows, { isTTY: f.io.stderrIsTTY, color: false }));
    throw error.with({ message: `the server refused the API key ${keyShown} (profile "${profile}")` });
  });
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
  rows.push(['Key name', `${me.name || '(no name)'} (id ${me.id})`], ['Owner', ownerLine(me)], ['Academies', me.academyIds.length ? me.academyIds.join(', ') : 'none']);
  await printDocument(
    f,
    () => `${stringifyExact(status, 2)}\n`,
    () => labelledText(rows, stdoutTerminal(f.io)),
  );
}
