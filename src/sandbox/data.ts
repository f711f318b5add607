/**
 * The sandbox's data: keys, academies, members and families, checked with
 * the same schemas the client validates responses with, plus the links
 * between them.
 */
import * as z from 'zod/mini';
import { schemas, type Id } from '../api/schemas.js';
import { API_KEY_FORM } from '../api/defaults.js';
import { formatIssues } from '../api/validation.js';

export const sandboxDataSchema = z.object({
  keys: z.array(
    z.object({
      /** The value of the X-API-Key header that stands for this key. */
      secret: z.string().check(z.minLength(1), z.regex(API_KEY_FORM, 'must be printable ASCII without spaces')),
      key: schemas.apiKey(),
    }),
  ),
  academies: z.array(schemas.academy()),
  members: z.array(schemas.familyMember()),
  /** Each family is a list of member ids; a member is in at most one family. */
  families: z.array(z.array(z.union([z.int(), z.bigint()]))),
});

export type SandboxData = z.infer<typeof sandboxDataSchema>;

/** Validates sandbox data; the message names the first bad field. */
export function parseSandboxData(input: unknown): SandboxData {
  const parsed = z.safeParse(sandboxDataSchema, input, { reportInput: true });
  if (!parsed.success) throw new Error(formatIssues(parsed.error.issues, sandboxDataSchema));
  const data = parsed.data;
  if (data.keys.length === 0) throw new Error('keys: at least one key is needed, or every request is refused');
  const unique = (ids: Id[], where: string) => {
    const seen = new Set<string>();
    ids.forEach((id, i) => {
      if (seen.has(String(id))) throw new Error(`${where}[${i}].id: duplicate id ${id}`);
      seen.add(String(id));
    });
  };
  unique(
    data.keys.map((k) => k.key.id),
    'keys',
  );
  unique(
    data.academies.map((a) => a.id),
    'academies',
  );
  unique(
    data.members.map((m) => m.id),
    'members',
  );
  const secrets = new Set<string>();
  data.keys.forEach((k, i) => {
    if (secrets.has(k.secret)) throw new Error(`keys[${i}].secret: duplicate secret`);
    secrets.add(k.secret);
  });
  const members = new Set(data.members.map((m) => String(m.id)));
  const inFamily = new Set<string>();
  data.families.forEach((family, f) => {
    family.forEach((id, i) => {
      if (!members.has(String(id))) throw new Error(`families[${f}][${i}]: no member with id ${id}`);
      if (inFamily.has(String(id))) throw new Error(`families[${f}][${i}]: member ${id} is in more than one family`);
      inFamily.add(String(id));
    });
  });
  return data;
}
