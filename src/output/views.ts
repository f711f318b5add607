/** What the table and CSV output show of each resource, and in which order. */
import type * as z from 'zod/mini';
import { schemas, type Academy, type Address, type ApiKey, type FamilyMember, type Id } from '../api/schemas.js';
import { csvColumns, type CsvColumn } from './csv.js';
import type { Column } from './tsv.js';

const joined = (parts: ReadonlyArray<string | null | undefined>, separator: string) =>
  parts.filter((part): part is string => typeof part === 'string' && part !== '').join(separator);

export function formatAddress(address: Address | null | undefined): string {
  if (!address) return '';
  const { line1, line2, city, state, postalCode, country } = address;
  return joined([line1, line2, joined([postalCode, city], ' '), state, country], ', ');
}

const apiKeyColumns: Column<ApiKey>[] = [
  { key: 'id', label: 'Key ID', value: (k) => k.id },
  { key: 'name', label: 'Key name', value: (k) => k.name },
  { key: 'academyIds', label: 'Academies', value: (k) => k.academyIds.join(','), display: (k) => k.academyIds.join(', ') },
  { key: 'user.id', label: 'Owner ID', value: (k) => k.user?.id },
  { key: 'user.name', label: 'Owner', value: (k) => k.user?.name },
  { key: 'user.email', label: 'Owner email', value: (k) => k.user?.email },
];

const academyColumns: Column<Academy>[] = [
  { key: 'id', label: 'ID', value: (a) => a.id },
  { key: 'name', label: 'Name', value: (a) => a.name },
  { key: 'currency', label: 'Currency', value: (a) => a.currency },
  { key: 'email', label: 'Email', value: (a) => a.email },
  { key: 'phone', label: 'Phone', value: (a) => a.phone },
  { key: 'address', label: 'Address', value: (a) => formatAddress(a.address) },
  {
    key: 'coordinates',
    label: 'Coordinates',
    value: (a) =>
      joined(
        [a.coordinates?.lat, a.coordinates?.lng].map((n) => (typeof n === 'number' ? String(n) : undefined)),
        ',',
      ),
  },
  { key: 'franchiseId', label: 'Franchise', value: (a) => a.franchiseId },
  { key: 'logoUrl', label: 'Logo', value: (a) => a.logoUrl },
  { key: 'createdAt', label: 'Created', value: (a) => a.createdAt },
];

const familyColumns: Column<FamilyMember>[] = [
  { key: 'id', label: 'ID', value: (m) => m.id },
  { key: 'firstName', label: 'First name', value: (m) => m.firstName },
  { key: 'lastName', label: 'Last name', value: (m) => m.lastName },
  { key: 'academyId', label: 'Academy', value: (m) => m.academyId },
  { key: 'primaryFamilyMember', label: 'Primary', value: (m) => m.primaryFamilyMember },
];

/** The columns of a list of academies (`academies`, `academy` with several ids). */
const academyListColumns: Column<Academy>[] = [
  { key: 'id', label: 'ID', value: (a) => a.id },
  { key: 'name', label: 'Name', value: (a) => a.name },
  { key: 'address.city', label: 'City', value: (a) => a.address?.city },
  { key: 'address.country', label: 'Country', value: (a) => a.address?.country },
  { key: 'currency', label: 'Currency', value: (a) => a.currency },
];

export interface ResourceView<T> {
  /** The fields of one record shown as a card (or one line in a pipe). */
  card: readonly Column<T>[];
  /** The columns of a table of several records. */
  list: readonly Column<T>[];
  /** The CSV columns: every field of the schema, flattened, in schema order. */
  csv: () => readonly CsvColumn[];
}

const once = <T>(make: () => T): (() => T) => {
  let value: T | undefined;
  return () => (value ??= make());
};

const view = <T>(schema: () => z.core.$ZodType, card: Column<T>[], list: Column<T>[]): ResourceView<T> => ({
  card,
  list,
  csv: once(() => csvColumns(schema())),
});

export const apiKeyView = view<ApiKey>(schemas.apiKey, apiKeyColumns, apiKeyColumns);
export const academyView = view<Academy>(schemas.academy, academyColumns, academyListColumns);
export const familyView = view<FamilyMember>(schemas.familyMember, familyColumns, familyColumns);

/** A family member in a batch of families: the member whose family it is, first (a field the API does not use). */
export type FamilyEntry = FamilyMember & { familyOf: Id };

const familyOfColumn: Column<FamilyEntry> = { key: 'familyOf', label: 'Family of', value: (m) => m.familyOf };

const familyEntryFields = once((): readonly CsvColumn[] => [{ name: 'familyOf', path: ['familyOf'] }, ...csvColumns(schemas.familyMember())]);

export const familyBatchView: ResourceView<FamilyEntry> = {
  card: [familyOfColumn, ...familyColumns],
  list: [familyOfColumn, ...familyColumns],
  csv: familyEntryFields,
};

/** One member's family: the same fields for scripts; on a terminal, a table that need not say whose family it is. */
export const familyOneView: ResourceView<FamilyEntry> = {
  card: familyColumns,
  list: familyColumns,
  csv: familyEntryFields,
};
