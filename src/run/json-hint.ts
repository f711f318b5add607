/**
 * `--json id,name`, as gh takes it: gymctl's --json takes no field list,
 * and the word after it would be read as an argument. Said the gymctl way.
 */
import { UsageError } from '../failures.js';

const FIELD_LIST = /^[A-Za-z_][\w.]*(,[A-Za-z_][\w.]*)*$/;

/** The usage error for the word right after --json, when it reads as a field list and is none of `commands` (`--json academies`). */
export function fieldListHint(argv: readonly string[], commands: readonly string[]): UsageError | undefined {
  const at = argv.indexOf('--json');
  const fields = at >= 0 ? argv[at + 1] : undefined;
  if (fields === undefined || !FIELD_LIST.test(fields) || commands.includes(fields)) return undefined;
  const object = fields
    .split(',')
    .map((field) => (field.includes('.') ? `"${field}": .${field}` : field))
    .join(', ');
  return new UsageError(`--json takes no field list (gh's --json FIELDS): use --jq '{${object}}' for JSON of those fields, or --columns ${fields} for a table or CSV`);
}
