// Types of profile.mjs, for the tests that import it.
export function sourceGroup(source: string): string;
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}
export function timeByGroup(profile: CpuProfile): [string, number][];
export function whereTimeGoes(node: string, args: string[], options: { env: NodeJS.ProcessEnv; input?: Buffer; top?: number }): string[][];
