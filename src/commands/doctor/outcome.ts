/** What a doctor check reports: a row (check, status, detail, fix), and the exit code's kind of a failure in its area, which run.ts takes the first of. */
import type { ErrorKind } from '../../api/errors.js';

export type Status = 'pass' | 'warn' | 'fail' | 'skip';
export interface CheckResult {
  check: string;
  status: Status;
  detail: string;
  fix: string | null;
}
/** A result, and the exit code's kind of a failure in its area. */
export type Outcome = CheckResult & { kind?: ErrorKind };

export function result(check: string, status: Status, detail: string, fix: string | null = null, kind?: ErrorKind): Outcome {
  return { check, status, detail, fix, ...(kind ? { kind } : {}) };
}
