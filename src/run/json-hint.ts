/** `--json id,name`, as gh takes it: gymctl's --json takes no field list, so the way to say it is suggested. */
import type { ArgvScan } from '../argv.js';
import type { GymctlError } from '../api/errors.js';
import { usageError } from '../failures.js';

const FIELD_LIST = /^[A-Za-z_][\w.]*(,[A-Za-z_][\w.]*)*$/;

/** The usage error for the operand right after --json, when it reads as a field list and is none of `commands` (`--json academies`). */
export function fieldListHint(scan: ArgvScan, commands: readonly string[]): GymctlError | undefined {
  const fields = scan.operandAfter.get('--json');
  if (fields === undefined || !FIELD_LIST.test(fields) || commands.includes(fields)) return undefined;
  const object = fields
    .split(',')
    .map((field) => (field.includes('.') ? `"${field}": .${field}` : field))
    .join(', ');
  return usageError(`--json takes no field list (gh's --json FIELDS): use --jq '{${object}}' for JSON of those fields, or --columns ${fields} for a table or CSV`);
}
