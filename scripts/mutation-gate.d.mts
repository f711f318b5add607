// Types of mutation-gate.mjs, for the tests that import it.
export const BAR: number;
export const RERUN_TIMEOUT_MS: number;
export const DISABLE: string;
export interface ReportMutant {
  mutatorName: string;
  replacement?: string;
  status: string;
  /** Why, as Stryker read it from the test runner: the failing test's message, for one killed. */
  statusReason?: string;
  location: { start: { line: number; column: number }; end: { line: number; column: number } };
}
export interface Report {
  files: Record<string, { source?: string; mutants: ReportMutant[] }>;
}
export interface MutantKey {
  file: string;
  mutator: string;
  line: string;
  original: string;
  replacement: string;
  /** Which of the file's lines of this text, where it has several (1 for the first). */
  ordinal?: number;
  /** Where on its line, from the line's first character that is not a space, where the line has another mutant of the same name. */
  column?: number;
}
export interface Equivalent extends Partial<MutantKey> {
  file: string;
  mutator: string;
  line: string;
  reason: string;
}
/** A `Stryker disable` comment in src/: its file, its line's number and text. */
export interface Disable {
  file: string;
  line: number;
  text: string;
}
export function mutantKey(file: string, source: string, mutant: ReportMutant, others?: readonly ReportMutant[]): MutantKey;
/** The first run's report without the mutants that timed out: the second run's incremental file. */
export function withoutTimeouts<R extends Report>(report: R): R;
export function statusOf(mutant: ReportMutant): string;
export function listedLine(source: string, entry: Pick<MutantKey, 'line' | 'ordinal'>): number | undefined;
export function judge(options: {
  report: Report | undefined;
  expected: readonly string[];
  equivalents: readonly Equivalent[];
  exists: (file: string) => boolean;
  pending?: readonly string[];
  rerun?: Report | undefined;
  disables?: readonly Disable[];
  ranges?: Readonly<Record<string, ReadonlyArray<readonly [number, number]>>>;
}): {
  lines: string[];
  failed: boolean;
};
