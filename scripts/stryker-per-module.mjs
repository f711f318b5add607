// A Stryker reporter for `npm run test:mutation`: each mutated module's score, the mutants left alive (file:line, what
// was changed), and a failing exit when any one module scores under the bar. Stryker's own `thresholds.break` looks
// only at the total, which a strong module can lift over a weak one.
import { declareClassPlugin, PluginKind } from '@stryker-mutator/api/plugin';

/** The lowest mutation score, in percent, that each module must reach. */
const BAR = 90;
const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);

class PerModuleReporter {
  onMutationTestReportReady(report) {
    const lines = [];
    let failed = false;
    for (const [file, { mutants }] of Object.entries(report.files).sort(([a], [b]) => a.localeCompare(b))) {
      const detected = mutants.filter((m) => DETECTED.has(m.status)).length;
      const alive = mutants.filter((m) => UNDETECTED.has(m.status));
      const score = detected + alive.length === 0 ? 100 : (100 * detected) / (detected + alive.length);
      const low = score < BAR;
      failed ||= low;
      lines.push(`${low ? 'LOW ' : '    '}${score.toFixed(2).padStart(6)}%  ${file}  (${detected} detected, ${alive.length} alive)`);
      for (const m of alive.sort((a, b) => a.location.start.line - b.location.start.line || a.location.start.column - b.location.start.column)) {
        const replacement = (m.replacement ?? '').replace(/\s+/g, ' ');
        lines.push(
          `          ${m.status} ${file}:${m.location.start.line}:${m.location.start.column}-${m.location.end.line}:${m.location.end.column} ${m.mutatorName}: ${replacement.length > 110 ? `${replacement.slice(0, 110)}…` : replacement}`,
        );
      }
    }
    console.log(`\nMutation score per module (each must reach ${BAR}%):\n${lines.join('\n')}\n`);
    if (failed) {
      console.log(`A module scored under ${BAR}%: kill its mutants with tests, or name each equivalent one in CONTRIBUTING.md.`);
      process.exitCode = 1;
    }
  }
}

export const strykerPlugins = [declareClassPlugin(PluginKind.Reporter, 'per-module', PerModuleReporter)];
