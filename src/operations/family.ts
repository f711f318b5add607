/** GET /members/{memberId}/family, as `gymctl family`: the other members of a member's family. */
import * as z from 'zod/mini';
import { described, envelope, identifier, maybe, named, text, url, type Id } from '../api/schemas.js';
import { once } from '../api/once.js';
import { defineOperation, type SandboxCollections } from './declare.js';

/** 2.7 Photo URLs of a member. */
const photoUrls = once(() =>
  described(
    z.looseObject({
      thumbnail: described(url(), 'URL of the thumbnail image'),
      large: described(url(), 'URL of the large image'),
    }),
    "A member's photo URLs (spec §2.7).",
  ),
);

/** 2.6 Family member entry, an element of GET /members/{memberId}/family. */
const familyMember = once(() =>
  described(
    z.looseObject({
      id: described(identifier(), 'Member identifier'),
      academyId: described(identifier(), 'Academy the member belongs to'),
      firstName: described(text(), "Member's first name"),
      lastName: described(text(), "Member's last name"),
      photoUrl: described(maybe(photoUrls()), 'Photo URLs'),
      primaryFamilyMember: described(z.boolean(), 'Whether this member is the primary member of the family'),
    }),
    "A member linked to another member's family (spec §2.6).",
  ),
);

export const schemas = { photoUrls, familyMember, familyResponse: once(() => envelope(z.array(familyMember()))) };

/** A member's photo URLs (spec §2.7). */
export type PhotoUrls = {
  /** URL of the thumbnail image */
  thumbnail?: string | null;
  /** URL of the large image */
  large?: string | null;
};

/** A member linked to another member's family (spec §2.6). */
export type FamilyMember = {
  /** Member identifier */
  id: Id;
  /** Academy the member belongs to */
  academyId: Id;
  /** Member's first name */
  firstName?: string | null;
  /** Member's last name */
  lastName?: string | null;
  /** Photo URLs */
  photoUrl?: PhotoUrls | null;
  /** Whether this member is the primary member of the family */
  primaryFamilyMember: boolean;
};

/** Each group of linked members is a list of member ids; a member is in at most one. */
const links = () => z.array(identifier());

/** Every id of a group names a member, and no member is in two groups. */
function checkLinks(data: SandboxCollections): void {
  const members = new Set((data.members ?? []).map((m) => String((m as FamilyMember).id)));
  const linked = new Set<string>();
  (data.families ?? []).forEach((group, g) => {
    (group as Id[]).forEach((id, i) => {
      if (!members.has(String(id))) throw new Error(`families[${g}][${i}]: no member with id ${id}`);
      if (linked.has(String(id))) throw new Error(`families[${g}][${i}]: member ${id} is in more than one family`);
      linked.add(String(id));
    });
  });
}

export const family = defineOperation({
  name: 'family',
  question: "who is in a member's family",
  topic: 'family links',
  method: 'GET',
  path: '/members/{memberId}/family',
  param: {
    name: 'memberId',
    what: 'member id',
    found: "A member id is a member's id in the gym's own records, or the id of a member that an earlier family answer listed: the API cannot list every member.",
  },
  schema: named<FamilyMember>(familyMember),
  list: true,
  listAnswer: {
    of: 'familyOf',
    label: 'Family of',
    empty: { one: (id) => `No family members are linked to member ${id}.`, many: 'No family members are linked to these members.' },
  },
  client: { method: 'listFamily', operation: 'family', summary: "The other members of a member's family (GET /members/{memberId}/family)." },
  openapi: {
    component: 'FamilyMember',
    tag: { name: 'members', description: 'Members and their family links' },
    summary: 'The other members of the family of a member (the member itself excluded)',
    description:
      'Lists the other members in the family of the given member, which is itself excluded: an empty array, or one entry per linked member. Neither the order nor any pagination is specified.',
    ok: 'The linked members, possibly none',
    errors: ['401', '404'],
  },
  command: {
    name: 'family',
    description: "list the members linked to a member's family (the member itself excluded)",
    argument: 'member ids (positive whole numbers, or comma-separated), or - to read them from stdin',
    progress: 'Fetching families',
    examples: ['gymctl family 501', 'gymctl family 501,530 --format ndjson', "gymctl family 501 --json | jq '.[] | select(.primaryFamilyMember)'"],
  },
  views: {
    card: [
      { key: 'id', label: 'ID', value: (m) => m.id },
      { key: 'firstName', label: 'First name', value: (m) => m.firstName },
      { key: 'lastName', label: 'Last name', value: (m) => m.lastName },
      { key: 'academyId', label: 'Academy', value: (m) => m.academyId },
      { key: 'primaryFamilyMember', label: 'Primary', value: (m) => m.primaryFamilyMember },
    ],
  },
  sandbox: {
    collections: { members: familyMember, families: links },
    check: checkLinks,
    // A member outside the key's academies is not found; the family is the other members of the member's group.
    answer: (data, id, key) => {
      const members = (data.members ?? []) as FamilyMember[];
      const member = members.find((m) => String(m.id) === id);
      if (!member || !key.academyIds.some((scoped) => String(scoped) === String(member.academyId))) return undefined;
      const group = ((data.families ?? []) as Id[][]).find((ids) => ids.some((other) => String(other) === id)) ?? [];
      const others = new Set(group.map(String).filter((other) => other !== id));
      return members.filter((m) => others.has(String(m.id)));
    },
  },
});
