/** A failed zod parse as one line naming the field and what was expected (`data.id: expected integer, got string`). */
import type * as z from 'zod/mini';

type Issue = z.core.$ZodIssue;
type Schema = z.core.$ZodType;

const formatPath = (path: readonly PropertyKey[]) =>
  path.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? String(part) : `.${String(part)}`)).join('') || '(body)';

export function unwrapSchema(schema: Schema): Schema {
  let current = schema;
  while (current._zod.def.type === 'optional' || current._zod.def.type === 'nullable') current = (current._zod.def as unknown as { innerType: Schema }).innerType;
  return current;
}

function schemaAt(schema: Schema, path: readonly PropertyKey[]): Schema | undefined {
  let current: Schema | undefined = schema;
  for (const part of path) {
    if (!current) return undefined;
    current = unwrapSchema(current);
    const def = current._zod.def as unknown as { type: string; shape?: Record<string, Schema>; element?: Schema; valueType?: Schema };
    if (def.type === 'object' && typeof part === 'string') current = def.shape?.[part];
    else if (def.type === 'record') current = def.valueType;
    else if (def.type === 'array' && typeof part === 'number') current = def.element;
    else return undefined;
  }
  return current && unwrapSchema(current);
}

/** An identifier: an integer as a number or a bigint (`identifier()` in schemas.ts). */
export function isIntegerUnion(schema: { _zod: { def: object } } | undefined): boolean {
  const def = schema?._zod.def as { type?: string; options?: Schema[] } | undefined;
  return def?.type === 'union' && (def.options ?? []).every((option) => ['number', 'bigint'].includes(option._zod.def.type));
}

export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'bigint') return 'integer';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return 'a number out of range';
    if (!Number.isInteger(value)) return 'number';
    return Number.isSafeInteger(value) ? 'integer' : 'an integer written so that it cannot be exact (an exponent or a fraction)';
  }
  return typeof value;
}

function formatIssue(issue: Issue & { expected?: string; maximum?: unknown; minimum?: unknown; inclusive?: boolean }, root: Schema): string {
  const where = formatPath(issue.path);
  const at = schemaAt(root, issue.path);
  const def = at?._zod.def as { type?: string; format?: string } | undefined;
  const isInteger = (def?.type === 'number' && def.format?.endsWith('int')) || isIntegerUnion(at);
  if (issue.code === 'invalid_type' || isIntegerUnion(at)) {
    const expected = isInteger || issue.expected === 'int' ? 'integer' : (issue.expected ?? 'a different value');
    if (issue.input === undefined) return `${where}: missing (expected ${expected})`;
    return `${where}: expected ${expected}, got ${describeValue(issue.input)}`;
  }
  if (issue.code === 'too_big' || issue.code === 'too_small') {
    const bound = issue.maximum ?? issue.minimum;
    if (typeof bound === 'number' && Math.abs(bound) < Number.MAX_SAFE_INTEGER) {
      const inclusive = issue.inclusive !== false;
      const limit = issue.code === 'too_big' ? (inclusive ? 'at most' : 'less than') : inclusive ? 'at least' : 'more than';
      return `${where}: expected ${limit} ${bound}, got ${String(issue.input)}`;
    }
    if (def?.type === 'number' && def.format === 'safeint') return `${where}: integer out of range (beyond ±9007199254740991)`;
    return `${where}: ${issue.code === 'too_big' ? 'too large' : 'too small'}`;
  }
  // The allowed values only: a value the server sent is never echoed (it may hold anything), nor a value from the config file.
  if (issue.code === 'invalid_value') return `${where}: expected one of ${issue.values.map(String).join(', ')}`;
  return `${where}: ${issue.message}`;
}

export function formatIssues(issues: readonly Issue[], root: Schema): string {
  const [first, ...rest] = issues;
  if (!first) return 'does not match the expected shape';
  return formatIssue(first, root) + (rest.length > 0 ? ` (and ${rest.length} more problem${rest.length === 1 ? '' : 's'})` : '');
}

/** How many problems of one answer --debug lists; past them, how many more. */
export const LISTED_PROBLEMS = 20;

/** Every problem of a failed parse, a line each (formatIssues's one line names only the first): the first LISTED_PROBLEMS, then how many more. */
export function listIssues(issues: readonly Issue[], root: Schema): string[] {
  const listed = issues.slice(0, LISTED_PROBLEMS).map((issue) => formatIssue(issue, root));
  return issues.length > LISTED_PROBLEMS ? [...listed, `and ${issues.length - LISTED_PROBLEMS} more`] : listed;
}
