/**
 * `gymctl doctor`: the README's troubleshooting table as a command, as `fly doctor` is. Read-only, never prompting, never
 * printing the key: each check in the order failures happen, with what to do. Here the order, the report and the exit code.
 */
import { AlreadyReported } from '../../failures.js';
import type { Factory } from '../../factory.js';
import { type GlobalFlags, profileFlag, resolveSettings } from '../../config/settings.js';
import { resolveOutput } from '../../output/choice.js';
import { errorFormat } from '../../run/report.js';
import { recordsText } from '../../output/human.js';
import type { Column } from '../../output/tsv.js';
import { configFolder } from '../../files/folders.js';
import { cacheCheck, cacheSecretCheck, codeCacheCheck, configCheck, nodeCheck, profileAndKeyChecks } from './checks-local.js';
import { oldConfigCheck } from './windows.js';
import { apiCheck, CHECK_BUDGET_MS, checkProgress, extraCaCheck, proxyCheck, seconds, tlsCheck } from './checks-network.js';
import { type CheckResult, type Outcome, result } from './outcome.js';

export type DoctorDeps = Pick<Factory, 'io' | 'env' | 'config' | 'profileName' | 'settings' | 'keyring' | 'makeClient' | 'output' | 'printJson' | 'signal'>;

const COLUMNS = (['check', 'status', 'detail', 'fix'] as const).map(
  (key): Column<CheckResult> => ({ key, label: `${key[0]!.toUpperCase()}${key.slice(1)}`, value: (row) => row[key] }),
);

/** JSON or the table; with a config file that cannot be read or a stored base URL refused, as errors are (a failing row, not the end). --jq compiles as it prints (printJson). */
async function printsJson(f: Pick<Factory, 'output' | 'config' | 'profileName'>, flags: GlobalFlags, configReadable: boolean): Promise<boolean> {
  const fromFlags = () => resolveOutput(flags, { value: errorFormat(f, flags), source: 'default' }, () => Promise.resolve(undefined as never));
  const { format } = configReadable ? await f.output().catch(fromFlags) : await fromFlags();
  return flags.jq !== undefined || format === 'json';
}

export async function runDoctor(f: DoctorDeps, options: GlobalFlags & { offline?: boolean }): Promise<void> {
  resolveSettings(options, f.env, { value: '', source: 'default' }, undefined); // a flag or variable refused is a usage error, as for every command
  const old = oldConfigCheck(configFolder(f.env));
  const results: Outcome[] = [nodeCheck(), ...configCheck(f), ...(old ? [old] : [])];
  const configReadable = !results.some((r) => r.check === 'config file' && r.status === 'fail');
  const json = await printsJson(f, options, configReadable); // --jq and the format are checked before anything is sent
  const failedEarly = results.some((r) => r.status === 'fail');
  if (!failedEarly) results.push(...(await profileAndKeyChecks(f)));
  const settings = failedEarly ? undefined : await f.settings().catch(() => undefined); // a stored base URL refused: profileAndKeyChecks's row
  const baseUrl = settings?.baseUrl ? new URL(settings.baseUrl.value) : undefined;
  const progress = checkProgress(f.io, f.env);
  if (failedEarly) results.push(result('base URL', 'skip', `not checked: ${configReadable ? 'Node is not supported' : 'the config file cannot be read'}`));
  else if (!baseUrl && settings) {
    const fix = `pass --base-url, set GYMCTL_BASE_URL, or gymctl config set base-url URL${profileFlag(settings!.profile.value, f.config().read())}`;
    results.push(result('base URL', 'fail', 'no base URL', fix, 'usage'));
  } else if (baseUrl) {
    const profile = settings!.profile.value;
    const { origin, source } = settings!.baseUrl!;
    results.push(result('base URL', 'pass', `${baseUrl.href.replace(/\/$/, '')} (from ${origin ?? source})`), proxyCheck(baseUrl, f.env), ...extraCaCheck(f.env));
    const network = options.offline ? 'skipped (--offline)' : undefined;
    // --timeout on the command line sets the budget; a stored or default timeout (30 s) is for commands, not for a report.
    const budgetMs = settings!.timeoutMs.source === 'flag' ? settings!.timeoutMs.value : CHECK_BUDGET_MS;
    try {
      if (baseUrl.protocol === 'https:') {
        const direct = !results.some((r) => r.check === 'proxy' && r.detail.includes('_PROXY:'));
        if (!network && direct) progress.show(`Checking TLS with ${baseUrl.host} (at most ${seconds(budgetMs)})`);
        results.push(
          network ? result('TLS', 'skip', network) : direct ? await tlsCheck(baseUrl, f.signal, budgetMs) : result('TLS', 'skip', 'through the proxy: checked by the API call'),
        );
      }
      const key = settings?.apiKey?.value ?? (await f.keyring.read(profile).catch(() => undefined))?.value;
      if (!network && key) progress.show(`Checking the API: GET ${baseUrl.href.replace(/\/$/, '')}/me (at most ${seconds(budgetMs)})`);
      results.push(
        network ? result('API', 'skip', network) : key ? await apiCheck(f, settings!.baseUrl!, profile, key, budgetMs) : result('API', 'skip', 'no key to call it with'),
      );
    } finally {
      progress.done();
    }
  }
  results.push(await cacheCheck(f.env), await cacheSecretCheck(f.env), await codeCacheCheck(f.env));
  const rows: CheckResult[] = results.map(({ kind: _kind, ...row }) => row);
  if (json) await f.printJson(`${JSON.stringify(rows, null, 2)}\n`);
  else if (!f.io.stdoutIsTTY)
    f.io.out(await recordsText(f.io, COLUMNS, rows)); // every column, for scripts
  else {
    // On a terminal, a column that holds nothing (Fix, when all is well) is left out, and its room goes to the others. Detail and
    // Fix are sentences to read whole (a command to run): wrapped in their column, never cut.
    const columns = COLUMNS.filter((column) => rows.some((row) => column.value(row) !== null && column.value(row) !== ''));
    f.io.out((await import('../../output/table.js')).renderTable(f.io, columns, rows, true, undefined, ['detail', 'fix']));
  }
  const failure = results.find((r) => r.status === 'fail');
  if (failure) throw new AlreadyReported(failure.kind ?? 'internal');
}
