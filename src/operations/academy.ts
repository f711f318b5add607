/** GET /academies/{academyId}, as `gymctl academy`, and every academy of the key as `gymctl academies`. */
import * as z from 'zod/mini';
import { described, email, envelope, identifier, maybe, named, says, text, url, type Id } from '../api/schemas.js';
import { once } from '../api/once.js';
import { defineOperation } from './declare.js';
import { whoami } from './whoami.js';

/** 2.4 Postal address. The spec gives its fields no meaning: these say what an address's fields are. */
const address = once(() =>
  described(
    z.looseObject({
      line1: described(text(), 'First line of the street address'),
      line2: described(text(), 'Second line of the street address'),
      city: described(text(), 'City or town'),
      state: described(text(), 'State, province or region'),
      postalCode: described(text(), 'Postal code'),
      country: described(text(), 'Country'),
    }),
    'A postal address (spec §2.4).',
  ),
);

/** 2.5 Geographic position in decimal degrees. */
const coordinates = once(() =>
  described(
    z.looseObject({
      lat: described(says(maybe(z.number()), { minimum: -90, maximum: 90 }), 'Latitude in decimal degrees, −90 to 90'),
      lng: described(says(maybe(z.number()), { minimum: -180, maximum: 180 }), 'Longitude in decimal degrees, −180 to 180'),
    }),
    'A geographic position in decimal degrees (spec §2.5).',
  ),
);

/** 2.3 Academy, returned by GET /academies/{academyId}. */
const record = once(() =>
  described(
    z.looseObject({
      id: described(identifier(), 'Academy identifier'),
      name: described(text(), 'Academy name'),
      // "a short upper-case alphabetic code": the spec names no standard and no length.
      currency: described(says(text(), { pattern: '^[A-Z]+$' }), 'Currency code of the academy (a short upper-case alphabetic code)'),
      email: described(email(), 'Contact e-mail address'),
      // "in international format with a leading plus sign": a plus, a country code (which never starts with 0), then digits and the usual separators.
      phone: described(says(text(), { pattern: '^\\+[1-9][0-9 ().-]*$' }), 'Contact telephone number in international format with a leading plus sign'),
      address: described(maybe(address()), 'Postal address'),
      coordinates: described(maybe(coordinates()), 'Geographic position'),
      franchiseId: described(maybe(identifier()), 'Identifier of the franchise the academy belongs to'),
      logoUrl: described(url(), 'URL of the academy logo image'),
      // "ISO 8601 date-time in UTC (form `YYYY-MM-DDThh:mm:ssZ`)": no fraction, no offset but Z.
      createdAt: described(
        says(text(), { format: 'date-time', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$' }),
        'Creation time, ISO 8601 date-time in UTC (form YYYY-MM-DDThh:mm:ssZ)',
      ),
    }),
    'An academy (spec §2.3).',
  ),
);

export const schemas = { address, coordinates, academy: record, academyResponse: once(() => envelope(record())) };

/** A postal address (spec §2.4). */
export type Address = {
  /** First line of the street address */
  line1?: string | null;
  /** Second line of the street address */
  line2?: string | null;
  /** City or town */
  city?: string | null;
  /** State, province or region */
  state?: string | null;
  /** Postal code */
  postalCode?: string | null;
  /** Country */
  country?: string | null;
};

/** A geographic position in decimal degrees (spec §2.5). */
export type Coordinates = {
  /** Latitude in decimal degrees, −90 to 90 */
  lat?: number | null;
  /** Longitude in decimal degrees, −180 to 180 */
  lng?: number | null;
};

/** An academy (spec §2.3). */
export type Academy = {
  /** Academy identifier */
  id: Id;
  /** Academy name */
  name?: string | null;
  /** Currency code of the academy (a short upper-case alphabetic code) */
  currency?: string | null;
  /** Contact e-mail address */
  email?: string | null;
  /** Contact telephone number in international format with a leading plus sign */
  phone?: string | null;
  /** Postal address */
  address?: Address | null;
  /** Geographic position */
  coordinates?: Coordinates | null;
  /** Identifier of the franchise the academy belongs to */
  franchiseId?: Id | null;
  /** URL of the academy logo image */
  logoUrl?: string | null;
  /** Creation time, ISO 8601 date-time in UTC (form YYYY-MM-DDThh:mm:ssZ) */
  createdAt?: string | null;
};

const joined = (parts: ReadonlyArray<string | number | null | undefined>, separator: string) => parts.filter((part) => part != null && part !== '').join(separator);

export function formatAddress(address: Address | null | undefined): string {
  if (!address) return '';
  const { line1, line2, city, state, postalCode, country } = address;
  return joined([line1, line2, joined([postalCode, city], ' '), state, country], ', ');
}

export const academy = defineOperation({
  name: 'academy',
  question: 'what an academy is',
  topic: 'academies',
  method: 'GET',
  path: '/academies/{academyId}',
  param: { name: 'academyId', what: 'academy id', found: 'The academies this key can see are the academyIds that whoami answers.' },
  schema: named<Academy>(record),
  list: false,
  client: { method: 'getAcademy', operation: 'academy', summary: 'One academy (GET /academies/{academyId}).' },
  openapi: {
    component: 'Academy',
    tag: { name: 'academies', description: 'Academies' },
    summary: 'One academy',
    description: "Returns exactly one academy. The specification does not say what happens when the academy lies outside the key's scope.",
    ok: 'The academy',
    errors: ['401', '404'],
  },
  command: {
    name: 'academy',
    description: 'show academies by id, in argument order; - reads ids from stdin',
    argument: 'academy ids (positive whole numbers), or - to read them from stdin; none at a terminal: choose from a list',
    progress: 'Fetching academies',
    examples: ['gymctl academy 1', 'seq 1 4 | gymctl academy - --format ndjson', 'gymctl academy 1 2 99 --ignore-not-found --format csv'],
  },
  views: {
    card: [
      { key: 'id', label: 'ID', value: (a) => a.id },
      { key: 'name', label: 'Name', value: (a) => a.name },
      { key: 'currency', label: 'Currency', value: (a) => a.currency },
      { key: 'email', label: 'Email', value: (a) => a.email },
      { key: 'phone', label: 'Phone', value: (a) => a.phone },
      { key: 'address', label: 'Address', value: (a) => formatAddress(a.address) },
      { key: 'coordinates', label: 'Coordinates', value: (a) => joined([a.coordinates?.lat, a.coordinates?.lng], ',') },
      { key: 'franchiseId', label: 'Franchise', value: (a) => a.franchiseId },
      { key: 'logoUrl', label: 'Logo', value: (a) => a.logoUrl },
      { key: 'createdAt', label: 'Created', value: (a) => a.createdAt },
    ],
    list: [
      { key: 'id', label: 'ID', value: (a) => a.id },
      { key: 'name', label: 'Name', value: (a) => a.name },
      { key: 'address.city', label: 'City', value: (a) => a.address?.city },
      { key: 'address.country', label: 'Country', value: (a) => a.address?.country },
      { key: 'currency', label: 'Currency', value: (a) => a.currency },
    ],
  },
  // The key's academies (GET /me): for Tab, the picker, and `gymctl academies`.
  values: {
    load: async (ask, signal) => {
      const me = await ask(whoami, undefined, signal);
      return { ids: me.academyIds, none: `The key "${me.name ?? me.id}" is scoped to no academies.` };
    },
    label: (a) => a.name,
    all: {
      name: 'academies',
      description: 'show every academy the key is scoped to, in the order of its academyIds',
      examples: ['gymctl academies', 'gymctl academies --format csv > academies.csv', "gymctl academies --json | jq -r '.[].name'"],
    },
  },
  sandbox: {
    collections: { academies: record },
    answer: (data, id, key) => (key.academyIds.some((scoped) => String(scoped) === id) ? data.academies?.find((a) => String((a as { id: Id }).id) === id) : undefined),
  },
});
