// The gate of `npm run test:mutation` (scripts/mutation-gate.mjs), judged on small reports made up here: a gate that
// passes a module it never scored would let a module's tests rot unseen.
import { describe, expect, it } from 'vitest';
import { DISABLE, type Equivalent, judge, listedLine, mutantKey, type Report, type ReportMutant, statusOf, withoutTimeouts } from '../../scripts/mutation-gate.mjs';

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

type Options = Partial<Omit<Parameters<typeof judge>[0], 'report' | 'exists'>> & { files?: string[] };
const run = (report: Report | undefined, { files, ...options }: Options = {}) =>
  judge({
    report,
    expected: ['src/f.ts'],
    equivalents: [],
    exists: (file) => (files ?? ['src/f.ts']).includes(file),
    ...options,
  });

describe('the mutation gate', () => {
  it('passes a module whose every mutant is detected, and says its score', () => {
    const { failed, lines } = run({ files: { 'src/f.ts': module(mutant('Timeout')) } }, { rerun: { files: { 'src/f.ts': { mutants: [mutant('Timeout')] } } } });
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

describe('no way around the gate', () => {
  it('1. a Stryker disable comment in src/ fails the run, unless listed with its reason; a listing of one no longer there is stale', () => {
    const disables = [{ file: 'src/g.ts', line: 4, text: '  // Stryker disable next-line Regex: made up' }];
    const report = { files: { 'src/f.ts': module(mutant('Killed')) } };
    const { failed, lines } = run(report, { disables });
    expect(failed).toBe(true);
    expect(lines.join('\n')).toContain('src/g.ts:4: a Stryker disable comment, not listed in test/mutation/equivalent.json with its reason');
    const listing: Equivalent = { file: 'src/g.ts', mutator: DISABLE, line: '// Stryker disable next-line Regex: made up', reason: 'made up' };
    expect(run(report, { disables, equivalents: [listing] }).failed).toBe(false);
    const stale = run(report, { equivalents: [listing] });
    expect(stale.failed).toBe(true);
    expect(stale.lines.join('\n')).toContain('src/g.ts: stale listing of a Stryker disable comment');
  });

  it('2. a mutant that only timed out is alive: detected only when it times out again alone, or is killed', () => {
    const report = { files: { 'src/f.ts': module(mutant('Timeout')) } };
    const again = (status: string) => ({ files: { 'src/f.ts': { mutants: [mutant(status)] } } });
    const never = run(report);
    expect(never.failed).toBe(true);
    expect(never.lines.join('\n')).toContain('src/f.ts:2:10: Timeout, not run again, and not listed as equivalent');
    expect(run(report, { rerun: again('Survived') }).failed).toBe(true);
    expect(run(report, { rerun: again('Killed') }).failed).toBe(false);
    expect(run(report, { rerun: again('Timeout') }).failed).toBe(false);
    // A rerun of another mutant of the same line says nothing of this one.
    expect(run(report, { rerun: { files: { 'src/f.ts': { mutants: [mutant('Killed', 'a < 8')] } } } }).failed).toBe(true);
  });

  it('2. the second run reuses every first result but the time-outs: a mutant inside the span, alike but for it, does not stand in', () => {
    const inner = { ...mutant('Killed'), location: { start: { line: 2, column: 10 }, end: { line: 2, column: 15 } } };
    const timedOut = module(mutant('Timeout'));
    const first = { files: { 'src/f.ts': { ...timedOut, mutants: [...timedOut.mutants, inner] } }, testFiles: { 't.ts': { tests: [] } } };
    const incremental = withoutTimeouts(first);
    // The incremental file keeps the tests and every result but the time-out, which Stryker would otherwise reuse.
    expect(incremental.testFiles).toEqual(first.testFiles);
    expect(incremental.files['src/f.ts'].mutants).toEqual(first.files['src/f.ts'].mutants.filter((m) => m.status !== 'Timeout'));
    expect(first.files['src/f.ts'].mutants.filter((m) => m.status === 'Timeout')).toHaveLength(1);
    // The rerun report holds the reused inner mutant, Killed: the timed-out one is judged by its own second run only.
    const rerun = (status: string) => ({ files: { 'src/f.ts': { mutants: [inner, mutant(status)] } } });
    expect(run(first, { rerun: rerun('Survived') }).failed).toBe(true);
    expect(run(first, { rerun: { files: { 'src/f.ts': { mutants: [inner] } } } }).failed).toBe(true);
    expect(run(first, { rerun: rerun('Timeout') }).failed).toBe(false);
  });

  it('2. a listed equivalent that timed out (once, or again alone) is not stale; one killed on its second run is', () => {
    const report = { files: { 'src/f.ts': module(mutant('Timeout')) } };
    const again = (status: string) => ({ files: { 'src/f.ts': { mutants: [mutant(status)] } } });
    expect(run(report, { equivalents: [EQUIVALENT], rerun: again('Survived') }).failed).toBe(false);
    expect(run(report, { equivalents: [EQUIVALENT], rerun: again('Timeout') }).failed).toBe(false);
    const killed = run(report, { equivalents: [EQUIVALENT], rerun: again('Killed') });
    expect(killed.failed).toBe(true);
    expect(killed.lines.join('\n')).toContain('src/f.ts: stale equivalent');
  });

  it("2. a test stopped at vitest's own limit (the second run's 30 s) timed out, though Stryker says killed: rerun, detected, and never stale", () => {
    const stopped = (what: string) => ({ ...mutant('Killed'), statusReason: `${what} timed out in 30000ms.\nIf this is a long-running test, …` });
    expect(statusOf(stopped('Test'))).toBe('Timeout');
    expect(statusOf(stopped('Hook'))).toBe('Timeout');
    expect(statusOf({ ...mutant('Killed'), statusReason: 'expected 1 to be 2' })).toBe('Killed');
    // In the first run it is run again, as a time-out is; in the second it is a second time-out, so detected.
    const first = { files: { 'src/f.ts': module(stopped('Test')) } };
    expect(withoutTimeouts(first).files['src/f.ts'].mutants).toHaveLength(9);
    expect(run(first).lines.join('\n')).toContain('Timeout, not run again');
    expect(run(first, { rerun: { files: { 'src/f.ts': { mutants: [stopped('Test')] } } } }).failed).toBe(false);
    // A listed equivalent stopped so, in either run, is not stale, as one that timed out is not.
    expect(run({ files: { 'src/f.ts': module(stopped('Test')) } }, { equivalents: [EQUIVALENT], rerun: { files: { 'src/f.ts': { mutants: [stopped('Hook')] } } } }).failed).toBe(
      false,
    );
  });

  it('3. a listing names one mutant: two survivors of the same text, on two lines alike, need two listings told apart by their ordinal', () => {
    const source = ['export function f(a: number) {', '  return a >= 8;', '}', 'export function g(a: number) {', '  return a >= 8;', '}', ''].join('\n');
    const mutants = [...Array.from({ length: 18 }, () => mutant('Killed', 'true', 'BooleanLiteral')), mutant('Survived'), mutant('Survived', 'a > 8', 'EqualityOperator', 5)];
    const report = { files: { 'src/f.ts': { source, mutants } } };
    const one = run(report, { equivalents: [EQUIVALENT] });
    expect(one.failed).toBe(true);
    expect(one.lines.join('\n')).toContain('src/f.ts:2:10: Survived, and not listed as equivalent');
    expect(one.lines.join('\n')).toContain('"ordinal":2');
    const first = { ...EQUIVALENT, ordinal: 1 };
    expect(run(report, { equivalents: [first] }).failed).toBe(true);
    expect(run(report, { equivalents: [first, { ...EQUIVALENT, ordinal: 2 }] }).failed).toBe(false);
    // The same listing twice is one too many: the second is stale.
    expect(run(report, { equivalents: [first, { ...first }, { ...EQUIVALENT, ordinal: 2 }] }).failed).toBe(true);
  });

  it('3. two survivors of the same text on one line are told apart by their column, counted from the line’s first character', () => {
    const source = ['export function f(a: number) {', '  return a >= 8 && a >= 8;', '}', ''].join('\n');
    const at = (column: number): ReportMutant => ({ ...mutant('Survived'), location: { start: { line: 2, column }, end: { line: 2, column: column + 6 } } });
    const mutants = [...Array.from({ length: 18 }, () => mutant('Killed', 'true', 'BooleanLiteral')), at(10), at(20)];
    expect(mutantKey('src/f.ts', source, at(20), mutants)).toMatchObject({ line: 'return a >= 8 && a >= 8;', original: 'a >= 8', column: 18 });
    const listing = { ...EQUIVALENT, line: 'return a >= 8 && a >= 8;' };
    const report = { files: { 'src/f.ts': { source, mutants } } };
    expect(run(report, { equivalents: [listing, listing] }).failed).toBe(true);
    expect(
      run(report, {
        equivalents: [
          { ...listing, column: 8 },
          { ...listing, column: 18 },
        ],
      }).failed,
    ).toBe(false);
  });

  it('4. a false equivalent, listed but killed by a test, fails the run as stale', () => {
    const { failed, lines } = run({ files: { 'src/f.ts': module(mutant('Killed')) } }, { equivalents: [EQUIVALENT] });
    expect(failed).toBe(true);
    expect(lines.join('\n')).toContain('src/f.ts: stale equivalent (no mutant left alive matches it): {"mutator":"EqualityOperator","line":"return a >= 8;"');
  });

  it('5. --mutate file:A-B judges only the listings inside the range: those outside are not stale, those inside are', () => {
    const source = ['export function f(a: number) {', '  return a >= 8;', '}', 'export const g = (b: number) => b < 3;', ''].join('\n');
    const outside: Equivalent = {
      file: 'src/f.ts',
      mutator: 'EqualityOperator',
      line: 'export const g = (b: number) => b < 3;',
      original: 'b < 3',
      replacement: 'b <= 3',
      reason: 'made up',
    };
    const report = { files: { 'src/f.ts': { source, mutants: module(mutant('Killed')).mutants } } };
    expect(listedLine(source, outside)).toBe(4);
    expect(run(report, { equivalents: [outside], ranges: { 'src/f.ts': [[1, 3]] } }).failed).toBe(false);
    expect(run(report, { equivalents: [outside] }).failed).toBe(true);
    expect(run(report, { equivalents: [outside], ranges: { 'src/f.ts': [[4, 4]] } }).failed).toBe(true);
    expect(run(report, { equivalents: [EQUIVALENT], ranges: { 'src/f.ts': [[2, 2]] } }).failed).toBe(true);
  });

  it("5. a range is not held to the bar, which is the whole module's: a line of one listed survivor scores 0% and passes", () => {
    const report = { files: { 'src/f.ts': { source: SOURCE, mutants: [mutant('Survived')] } } };
    const ranged = run(report, { equivalents: [EQUIVALENT], ranges: { 'src/f.ts': [[2, 2]] } });
    expect(ranged.failed).toBe(false);
    expect(ranged.lines.join('\n')).toContain('0.00%  src/f.ts');
    expect(run(report, { equivalents: [EQUIVALENT] }).failed).toBe(true);
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
      if (entry.mutator !== DISABLE) expect(Object.keys(MODULES)).toContain(entry.file);
      expect(entry.reason.length, JSON.stringify(entry)).toBeGreaterThan(20);
    }
  });
});
