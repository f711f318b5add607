// The gate of `npm run test:mutation`, judged from Stryker's JSON report (reports/mutation/mutation.json) after the
// run: every module expected (test/mutation/modules.mjs) must be in the report and scored, reach the bar, and every
// mutant left alive must be listed as equivalent (test/mutation/equivalent.json), with the reason no test can tell it
// from the code. A listed mutant that is no longer left alive (killed, or no longer made) is stale, and fails the run
// too: the list says only what is true of the code as it stands.
// Stryker's own `thresholds.break` looks only at the total, which a strong module can lift over a weak one, and a
// `mutate` entry that matches no file only makes it warn.

/** The lowest mutation score, in percent, that each module must reach. */
export const BAR = 90;
const DETECTED = new Set(['Killed', 'Timeout']);
const ALIVE = new Set(['Survived', 'NoCoverage']);

const collapse = (text) => text.replace(/\s+/g, ' ').trim();

/** A long text, cut in its middle: a mutant of a whole block is named by its ends. */
const cut = (text) => (text.length > 100 ? `${text.slice(0, 60)}…${text.slice(-30)}` : text);

/**
 * What names a mutant across runs, whatever lines were added above it: its file, its mutator, the text of the line it
 * starts on, the text it changes and its replacement (each with its spaces collapsed). Stryker's ids are only its order
 * in one run, and a line alone does not tell apart two mutants of it with the same replacement.
 */
export function mutantKey(file, source, mutant) {
  const lines = source.split('\n');
  const { start, end } = mutant.location;
  const span = lines.slice(start.line - 1, end.line);
  if (span.length > 0) {
    span[span.length - 1] = span[span.length - 1].slice(0, end.column - 1);
    span[0] = span[0].slice(start.column - 1);
  }
  return {
    file,
    mutator: mutant.mutatorName,
    line: collapse(lines[start.line - 1] ?? ''),
    original: cut(collapse(span.join('\n'))),
    replacement: cut(collapse(mutant.replacement ?? '')),
  };
}

const sameKey = (a, b) => a.file === b.file && a.mutator === b.mutator && a.line === b.line && a.original === b.original && a.replacement === b.replacement;

/**
 * Judges a report. `expected` lists the modules that must be scored; `equivalents` the mutants that may stay alive;
 * `exists(file)` whether a module's file is there; `pending` the modules whose tests are still being written: they are
 * run, scored and judged as the others, and a score under the bar, an unlisted survivor or a stale listing of theirs is
 * printed but does not fail the run (a pending module missing or unscored does).
 * Returns the lines to print and whether the run failed.
 */
export function judge({ report, expected, equivalents, exists, pending = [] }) {
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
    const mutants = entry.mutants ?? [];
    const detected = mutants.filter((m) => DETECTED.has(m.status));
    const alive = mutants.filter((m) => ALIVE.has(m.status));
    const timeouts = mutants.filter((m) => m.status === 'Timeout').length;
    const other = mutants.length - detected.length - alive.length;
    if (detected.length + alive.length === 0) {
      all.push(`${file}: 0 of 0 mutants scored (${mutants.length} made, all ignored or in error): no score to judge`);
      continue;
    }
    const score = (100 * detected.length) / (detected.length + alive.length);
    const low = score < BAR;
    if (low) problems.push(`${file}: ${score.toFixed(2)}%, under ${BAR}%`);
    lines.push(
      `${pending.includes(file) ? 'PENDING ' : ''}${low ? 'LOW ' : '    '}${score.toFixed(2).padStart(6)}%  ${file}  (${detected.length} detected, ${timeouts} of them by a timeout; ${alive.length} alive${other ? `; ${other} not scored` : ''})`,
    );
    const listed = equivalents.filter((e) => e.file === file);
    const used = new Set();
    const sorted = alive.sort((a, b) => a.location.start.line - b.location.start.line || a.location.start.column - b.location.start.column);
    for (const mutant of sorted) {
      const key = mutantKey(file, entry.source ?? '', mutant);
      const match = listed.find((e) => sameKey(e, key));
      const where = `${file}:${mutant.location.start.line}:${mutant.location.start.column}`;
      if (match) {
        used.add(match);
        continue;
      }
      problems.push(`${where}: ${mutant.status}, and not listed as equivalent`);
      lines.push(`          unlisted ${mutant.status} ${where} ${JSON.stringify(key)}`);
    }
    for (const entry of listed) {
      if (used.has(entry)) continue;
      problems.push(
        `${file}: stale equivalent (no mutant left alive matches it): ${JSON.stringify({ mutator: entry.mutator, line: entry.line, original: entry.original, replacement: entry.replacement })}`,
      );
    }
  }
  for (const file of Object.keys(files)) if (!judged.has(file)) lines.push(`        ${file}: mutated, but not a guarded module (not judged)`);
  if (waiting.length > 0) lines.push('', 'Pending modules (test/mutation/modules.mjs), not yet held to the gate:', ...waiting.map((p) => `  ${p}`));
  if (all.length > 0) lines.push('', 'The mutation gate failed:', ...all.map((p) => `  ${p}`));
  return { lines, failed: all.length > 0 };
}
