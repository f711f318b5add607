// Types of mutation-gate.mjs, for the tests that import it.
export const BAR: number;
export interface ReportMutant {
  mutatorName: string;
  replacement?: string;
  status: string;
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
}
export interface Equivalent extends MutantKey {
  reason: string;
}
export function mutantKey(file: string, source: string, mutant: ReportMutant): MutantKey;
export function judge(options: {
  report: Report | undefined;
  expected: readonly string[];
  equivalents: readonly Equivalent[];
  exists: (file: string) => boolean;
  pending?: readonly string[];
}): {
  lines: string[];
  failed: boolean;
};
