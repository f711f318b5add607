// The gate of `npm run test:mutation` (scripts/mutation-gate.mjs), judged on small reports made up here: a gate that
// passes a module it never scored would let a module's tests rot unseen.
import { describe, expect, it } from 'vitest';
import { type Equivalent, judge, type Report, type ReportMutant } from '../../scripts/mutation-gate.mjs';

const SOURCE = ['export function f(a: number) {', '  return a >= 8;', '}', ''].join('\n');

const mutant = (status: string, replacement = 'a > 8', mutatorName = 'EqualityOperator', line = 2): ReportMutant => ({
  mutatorName,
  replacement,
  status,
  location: { start: { line, column: 10 }, end: { line, column: 16 } },
});

/** A module of ten mutants: nine killed and one more of the status given. */
const module = (last: ReportMutant): Report['files'][string] => ({
  source: SOURCE,
  mutants: [...Array.from({ length: 9 }, () => mutant('Killed', 'true', 'BooleanLiteral')), last],
});

const EQUIVALENT: Equivalent = { file: 'src/f.ts', mutator: 'EqualityOperator', line: 'return a >= 8;', original: 'a >= 8', replacement: 'a > 8', reason: 'made up' };

const run = (report: Report | undefined, options: { expected?: string[]; equivalents?: Equivalent[]; files?: string[] } = {}) =>
  judge({
    report,
    expected: options.expected ?? ['src/f.ts'],
    equivalents: options.equivalents ?? [],
    exists: (file) => (options.files ?? ['src/f.ts']).includes(file),
  });

describe('the mutation gate', () => {
  it('passes a module whose every mutant is detected, and says its score', () => {
    const { failed, lines } = run({ files: { 'src/f.ts': module(mutant('Timeout')) } });
    expect(failed).toBe(false);
    expect(lines.join('\n')).toContain('100.00%  src/f.ts');
  });

  it('fails when a guarded module is misspelt, so it would never be scored', () => {
    const { failed, lines } = run({ files: { 'src/f.ts': module(mutant('Killed')) } }, { expected: ['src/f.ts', 'src/ff.ts'] });
    expect(failed).toBe(true);
    expect(lines.join('\n')).toContain('src/ff.ts: no such file');
  });

  it('fails when a guarded module is missing from the report', () => {
    const { failed, lines } = run({ files: {} });
    expect(failed).toBe(true);
    expect(lines.join('\n')).toContain("src/f.ts: not in Stryker's report");
  });

  it('fails when there is no report at all', () => {
    expect(run(undefined).failed).toBe(true);
  });

  it('fails a module scored 0 of 0, its mutants all ignored or in error, instead of reading 100%', () => {
    const { failed, lines } = run({ files: { 'src/f.ts': { source: SOURCE, mutants: [mutant('RuntimeError'), mutant('Ignored'), mutant('CompileError')] } } });
    expect(failed).toBe(true);
    expect(lines.join('\n')).toContain('0 of 0 mutants scored');
  });

  it('fails on a survivor that is not listed as equivalent, and prints the key to list it by', () => {
    const { failed, lines } = run({ files: { 'src/f.ts': module(mutant('Survived')) } });
    expect(failed).toBe(true);
    expect(lines.join('\n')).toContain('src/f.ts:2:10: Survived, and not listed as equivalent');
    expect(lines.join('\n')).toContain(JSON.stringify({ file: 'src/f.ts', mutator: 'EqualityOperator', line: 'return a >= 8;', original: 'a >= 8', replacement: 'a > 8' }));
  });

  it('counts a mutant no test reached as alive', () => {
    expect(run({ files: { 'src/f.ts': module(mutant('NoCoverage')) } }).failed).toBe(true);
  });

  it('passes a survivor listed as equivalent, wherever its line has moved to', () => {
    const moved = { source: `// a comment\n${SOURCE}`, mutants: [...module(mutant('Killed')).mutants.slice(0, 9), mutant('Survived', 'a > 8', 'EqualityOperator', 3)] };
    expect(run({ files: { 'src/f.ts': moved } }, { equivalents: [EQUIVALENT] }).failed).toBe(false);
  });

  it('does not take a listing for another replacement on the same line', () => {
    const { failed } = run({ files: { 'src/f.ts': module(mutant('Survived', 'a < 8')) } }, { equivalents: [EQUIVALENT] });
    expect(failed).toBe(true);
  });

  it('fails on a stale listing: a mutant listed as equivalent that a test now kills', () => {
    const { failed, lines } = run({ files: { 'src/f.ts': module(mutant('Killed', 'a > 8', 'EqualityOperator')) } }, { equivalents: [EQUIVALENT] });
    expect(failed).toBe(true);
    expect(lines.join('\n')).toContain('src/f.ts: stale equivalent');
  });

  it('does not judge the listings of a module left out of a one-module run', () => {
    const other = { ...EQUIVALENT, file: 'src/g.ts' };
    expect(run({ files: { 'src/f.ts': module(mutant('Killed')) } }, { equivalents: [other] }).failed).toBe(false);
  });

  it('prints what would fail a pending module, without failing the run; a misspelt or unscored one fails all the same', () => {
    const low = { source: SOURCE, mutants: [mutant('Killed'), mutant('Survived')] };
    const { failed, lines } = judge({ report: { files: { 'src/f.ts': low } }, expected: ['src/f.ts'], equivalents: [], exists: () => true, pending: ['src/f.ts'] });
    expect(failed).toBe(false);
    expect(lines.join('\n')).toContain('PENDING LOW  50.00%  src/f.ts');
    expect(lines.join('\n')).toContain('not yet held to the gate:\n  src/f.ts: 50.00%, under 90%');
    expect(judge({ report: { files: {} }, expected: ['src/ff.ts'], equivalents: [], exists: () => false, pending: ['src/ff.ts'] }).failed).toBe(true);
    expect(judge({ report: { files: {} }, expected: ['src/f.ts'], equivalents: [], exists: () => true, pending: ['src/f.ts'] }).failed).toBe(true);
  });

  it('fails a module under 90% even when each survivor is listed', () => {
    const mutants = [...Array.from({ length: 8 }, () => mutant('Killed', 'true', 'BooleanLiteral')), mutant('Survived'), mutant('Survived', 'a < 8')];
    const listed = [EQUIVALENT, { ...EQUIVALENT, replacement: 'a < 8' }];
    const { failed, lines } = run({ files: { 'src/f.ts': { source: SOURCE, mutants } } }, { equivalents: listed });
    expect(failed).toBe(true);
    expect(lines.join('\n')).toContain('src/f.ts: 80.00%, under 90%');
  });
});

describe('the guarded modules and their equivalents', () => {
  it('names files that exist, each with test files that exist', async () => {
    const { existsSync } = await import('node:fs');
    const { MODULES } = await import('../mutation/modules.mjs');
    const root = new URL('../../', import.meta.url);
    const missing = Object.entries(MODULES).flatMap(([module, tests]) => [module, ...tests].filter((file) => !existsSync(new URL(file, root))));
    expect(missing).toEqual([]);
  });

  it('lists each equivalent mutant of a guarded module with its reason', async () => {
    const { MODULES } = await import('../mutation/modules.mjs');
    const { default: equivalents } = await import('../mutation/equivalent.json', { with: { type: 'json' } });
    for (const entry of equivalents as Equivalent[]) {
      expect(Object.keys(MODULES)).toContain(entry.file);
      expect(entry.reason.length, JSON.stringify(entry)).toBeGreaterThan(20);
    }
  });
});
