/** The sandbox's data: its keys, and the lists each operation reads, checked with the client's schemas and the operations' own checks. */
import * as z from 'zod/mini';
import { API_KEY_FORM } from '../api/defaults.js';
import type { Id } from '../api/schemas.js';
import { formatIssues } from '../api/validation.js';
import type { SandboxCollections } from '../operations/declare.js';
import { OPERATIONS, schemas } from '../operations/index.js';
import { once } from '../api/once.js';

const keySchema = once(() =>
  z.object({
    /** The value of the X-API-Key header that stands for this key. */
    secret: z.string().check(z.minLength(1), z.regex(API_KEY_FORM, 'must be printable ASCII without spaces')),
    key: schemas.apiKey(),
  }),
);

/** The keys, and every operation's lists, by name. */
export const sandboxDataSchema = once(() =>
  z.object({
    keys: z.array(keySchema()),
    ...Object.fromEntries(OPERATIONS.flatMap((declaration) => Object.entries(declaration.sandbox.collections ?? {})).map(([name, item]) => [name, z.array(item())])),
  }),
);

export interface SandboxKey {
  secret: string;
  key: { id: Id; academyIds: readonly Id[]; [field: string]: unknown };
}

export type SandboxData = SandboxCollections & { readonly keys: readonly SandboxKey[] };

/** Validates sandbox data; the message names the first bad field. */
export function parseSandboxData(input: unknown): SandboxData {
  const schema = sandboxDataSchema();
  const parsed = z.safeParse(schema, input, { reportInput: true });
  if (!parsed.success) throw new Error(formatIssues(parsed.error.issues, schema));
  const data = parsed.data as unknown as SandboxData;
  if (data.keys.length === 0) throw new Error('keys: at least one key is needed, or every request is refused');
  const unique = (where: string, ids: unknown[]) => {
    const seen = new Set<string>();
    ids.forEach((id, i) => {
      if (id === undefined) return;
      if (seen.has(String(id))) throw new Error(`${where}[${i}].id: duplicate id ${id}`);
      seen.add(String(id));
    });
  };
  for (const [name, items] of Object.entries(data)) unique(name, name === 'keys' ? data.keys.map((k) => k.key.id) : (items ?? []).map((item) => (item as { id?: unknown })?.id));
  const secrets = new Set<string>();
  data.keys.forEach((k, i) => {
    if (secrets.has(k.secret)) throw new Error(`keys[${i}].secret: duplicate secret`);
    secrets.add(k.secret);
  });
  for (const declaration of OPERATIONS) declaration.sandbox.check?.(data);
  return data;
}
