// The gate of `npm run test:mutation`, judged from Stryker's JSON report (reports/mutation/mutation.json) after the
// run: every module expected (test/mutation/modules.mjs) must be in the report and scored, reach the bar, and every
// mutant left alive must be listed as equivalent (test/mutation/equivalent.json), with the reason no test can tell it
// from the code. A listed mutant that is no longer left alive (killed, or no longer made) is stale, and fails the run
// too: the list says only what is true of the code as it stands. A mutant that timed out counts as detected only once it
// times out again, or is killed, in a second run apart from the others, with a generous limit (scripts/test-mutation.mjs
// runs it). A `Stryker disable` comment in src/ must be listed too, with its reason.
// Stryker's own `thresholds.break` looks only at the total, which a strong module can lift over a weak one, and a
// `mutate` entry that matches no file only makes it warn.

/** The lowest mutation score, in percent, that each module must reach. */
export const BAR = 90;
/** The time limit of a mutant's second run (two at once, one a core), after it timed out among the others: a busy machine is no excuse. */
export const RERUN_TIMEOUT_MS = 30_000;
const DETECTED = new Set(['Killed', 'Timeout']);
/**
 * A mutant's status as the gate reads it: a test that vitest stopped at its own limit (`testTimeout` in
 * test/mutation/vitest.config.ts, the second run's 30 s) timed out, though Stryker reports it killed.
 */
export const statusOf = (mutant) => (mutant.status === 'Killed' && /^(?:Test|Hook) timed out in \d+ms/.test(mutant.statusReason ?? '') ? 'Timeout' : mutant.status);
const ALIVE = new Set(['Survived', 'NoCoverage']);
/** What a listing of a `Stryker disable` comment gives as its mutator: the comment's line is its `line`. */
export const DISABLE = 'Stryker disable';

const collapse = (text) => text.replace(/\s+/g, ' ').trim();

/** A long text, cut in its middle: a mutant of a whole block is named by its ends. */
const cut = (text) => (text.length > 100 ? `${text.slice(0, 60)}…${text.slice(-30)}` : text);

/**
 * What names a mutant across runs, whatever lines were added above it: its file, its mutator, the text of the line it
 * starts on, the text it changes and its replacement (each with its spaces collapsed). Stryker's ids are only its order
 * in one run, and a line alone does not tell apart two mutants of it with the same replacement. Where the file has more
 * than one line of that text, `ordinal` says which (1 for the first); where `others` (the mutants of the same file)
 * hold another of the same name on that very line, `column` says where it starts, counted from the line's first
 * character that is not a space. A key names one mutant.
 */
export function mutantKey(file, source, mutant, others = []) {
  const lines = source.split('\n');
  const { start, end } = mutant.location;
  const span = lines.slice(start.line - 1, end.line);
  if (span.length > 0) {
    span[span.length - 1] = span[span.length - 1].slice(0, end.column - 1);
    span[0] = span[0].slice(start.column - 1);
  }
  const line = collapse(lines[start.line - 1] ?? '');
  const key = { file, mutator: mutant.mutatorName, line, original: cut(collapse(span.join('\n'))), replacement: cut(collapse(mutant.replacement ?? '')) };
  const alike = lines.flatMap((text, index) => (collapse(text) === line ? [index + 1] : []));
  if (alike.length > 1) key.ordinal = alike.indexOf(start.line) + 1;
  const twin = others.some(
    (other) =>
      other !== mutant &&
      other.location.start.line === start.line &&
      other.mutatorName === mutant.mutatorName &&
      collapse(other.replacement ?? '') === collapse(mutant.replacement ?? '') &&
      mutantKey(file, source, other).original === key.original,
  );
  if (twin) key.column = start.column - (lines[start.line - 1] ?? '').search(/\S|$/);
  return key;
}

/** The line (1-based) a listing names in `source`, by its text and ordinal; undefined when there is none. */
export function listedLine(source, entry) {
  const alike = source.split('\n').flatMap((text, index) => (collapse(text) === entry.line ? [index + 1] : []));
  if (entry.ordinal === undefined) return alike.length === 1 ? alike[0] : undefined;
  return alike[entry.ordinal - 1];
}

const sameKey = (a, b) =>
  a.file === b.file &&
  a.mutator === b.mutator &&
  a.line === b.line &&
  a.original === b.original &&
  a.replacement === b.replacement &&
  a.ordinal === b.ordinal &&
  a.column === b.column;

const sameMutant = (a, b) =>
  a.mutatorName === b.mutatorName &&
  (a.replacement ?? '') === (b.replacement ?? '') &&
  a.location.start.line === b.location.start.line &&
  a.location.start.column === b.location.start.column &&
  a.location.end.line === b.location.end.line &&
  a.location.end.column === b.location.end.column;

/**
 * The incremental report the second run is given (Stryker's --incrementalFile): the first run's, without the mutants
 * that timed out. Stryker reuses the result of every mutant it finds there whose tests did not change, so of the
 * mutants inside the timed-out ones' spans only those run again; and none is reused as a time-out.
 */
export function withoutTimeouts(report) {
  const files = Object.entries(report.files).map(([file, entry]) => [file, { ...entry, mutants: entry.mutants.filter((m) => statusOf(m) !== 'Timeout') }]);
  return { ...report, files: Object.fromEntries(files) };
}

/**
 * A mutant's status once its time-out is settled: one that timed out is looked for in `rerun`, the report of its
 * second run (RERUN_TIMEOUT_MS), and takes the status it has there; only a second timeout, or a kill, is
 * detected. One never run again counts as alive. The other mutants of `rerun` kept their first run's result (see
 * withoutTimeouts) and are not looked at: a mutant is found by its mutator, replacement and exact span, which is how
 * Stryker itself names it, so a mutant inside a timed-out one's span never stands in for it.
 */
function settled(file, mutant, rerun) {
  if (statusOf(mutant) !== 'Timeout') return mutant.status;
  const again = (rerun?.files?.[file]?.mutants ?? []).find((other) => sameMutant(other, mutant));
  return again ? statusOf(again) : 'Timeout, not run again';
}

/**
 * Judges a report. `expected` lists the modules that must be scored; `equivalents` the mutants that may stay alive;
 * `exists(file)` whether a module's file is there; `pending` the modules whose tests are still being written: they are
 * run, scored and judged as the others, and a score under the bar, an unlisted survivor or a stale listing of theirs is
 * printed but does not fail the run (a pending module missing or unscored does). `rerun` is the report of the mutants
 * that timed out, each run again in a second pass; `disables` every `Stryker disable` comment in src/, each of which must be
 * listed (mutator DISABLE, its line's text); `ranges` the lines a `--mutate file:A-B` run was given, per file: only
 * the listings inside them are judged, and the score is not held to the bar.
 * Returns the lines to print and whether the run failed.
 */
export function judge({ report, expected, equivalents, exists, pending = [], rerun, disables = [], ranges = {} }) {
  const lines = [];
  const all = [];
  const waiting = [];
  const files = report?.files ?? {};
  const judged = new Set(expected);
  for (const file of [...expected].sort()) {
    const problems = pending.includes(file) ? waiting : all;
    if (!exists(file)) {
      // A module misspelt, missing from the report or unscored fails the run, pending or not.
      all.push(`${file}: no such file (a module misspelt in test/mutation/modules.mjs, or moved)`);
      continue;
    }
    const entry = files[file];
    if (!entry) {
      all.push(`${file}: not in Stryker's report, so never scored`);
      continue;
    }
    const mutants = (entry.mutants ?? []).map((m) => ({ ...m, status: settled(file, m, rerun), first: statusOf(m) }));
    const detected = mutants.filter((m) => DETECTED.has(m.status));
    // A mutant that timed out and then did not time out again in the second run, nor was killed, is alive.
    const alive = mutants.filter((m) => ALIVE.has(m.status) || (m.first === 'Timeout' && !DETECTED.has(m.status)));
    const timeouts = mutants.filter((m) => m.status === 'Timeout').length;
    const other = mutants.length - detected.length - alive.length;
    if (detected.length + alive.length === 0) {
      all.push(`${file}: 0 of 0 mutants scored (${mutants.length} made, all ignored or in error): no score to judge`);
      continue;
    }
    const score = (100 * detected.length) / (detected.length + alive.length);
    // The bar is the whole module's: a few lines' share of listed equivalents says nothing of it.
    const low = score < BAR && !ranges[file];
    if (low) problems.push(`${file}: ${score.toFixed(2)}%, under ${BAR}%`);
    lines.push(
      `${pending.includes(file) ? 'PENDING ' : ''}${low ? 'LOW ' : '    '}${score.toFixed(2).padStart(6)}%  ${file}  (${detected.length} detected, ${timeouts} of them by a timeout run twice; ${alive.length} alive${other ? `; ${other} not scored` : ''})`,
    );
    const source = entry.source ?? '';
    // A run of `--mutate file:A-B` judges only the listings of lines inside its ranges.
    const inRange = (e) => {
      if (!ranges[file]) return true;
      const at = listedLine(source, e);
      return at !== undefined && ranges[file].some(([from, to]) => at >= from && at <= to);
    };
    const listed = equivalents.filter((e) => e.file === file && e.mutator !== DISABLE && inRange(e));
    const used = new Set();
    const sorted = mutants.sort((a, b) => a.location.start.line - b.location.start.line || a.location.start.column - b.location.start.column);
    for (const mutant of sorted) {
      const key = mutantKey(file, source, mutant, sorted);
      const match = listed.find((e) => !used.has(e) && sameKey(e, key));
      const where = `${file}:${mutant.location.start.line}:${mutant.location.start.column}`;
      if (match) {
        // A listed mutant that timed out twice is not alive, nor is its listing stale: a kill makes it stale (and a
        // mutant no longer scored: ignored, or in error).
        if (alive.includes(mutant) || mutant.status === 'Timeout') used.add(match);
        continue;
      }
      if (!alive.includes(mutant)) continue;
      problems.push(`${where}: ${mutant.status}, and not listed as equivalent`);
      lines.push(`          unlisted ${mutant.status} ${where} ${JSON.stringify(key)}`);
    }
    for (const entry of listed) {
      if (used.has(entry)) continue;
      const { file: _file, reason: _reason, ...named } = entry;
      problems.push(`${file}: stale equivalent (no mutant left alive matches it): ${JSON.stringify(named)}`);
    }
  }
  // Every `Stryker disable` comment of src/ turns mutants off unseen: each must be listed, with its reason.
  const disabled = equivalents.filter((e) => e.mutator === DISABLE);
  const seen = new Set();
  for (const { file, line, text } of disables) {
    const match = disabled.find((e) => e.file === file && e.line === collapse(text) && !seen.has(e));
    if (match) seen.add(match);
    else
      all.push(
        `${file}:${line}: a Stryker disable comment, not listed in test/mutation/equivalent.json with its reason: ${JSON.stringify({ file, mutator: DISABLE, line: collapse(text) })}`,
      );
  }
  for (const entry of disabled) if (!seen.has(entry)) all.push(`${entry.file}: stale listing of a Stryker disable comment that is no longer there: ${JSON.stringify(entry.line)}`);
  for (const file of Object.keys(files)) if (!judged.has(file)) lines.push(`        ${file}: mutated, but not a guarded module (not judged)`);
  if (waiting.length > 0) lines.push('', 'Pending modules (test/mutation/modules.mjs), not yet held to the gate:', ...waiting.map((p) => `  ${p}`));
  if (all.length > 0) lines.push('', 'The mutation gate failed:', ...all.map((p) => `  ${p}`));
  return { lines, failed: all.length > 0 };
}
