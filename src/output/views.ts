/** What the table output shows of each resource, and in which order. */
import type { Academy, Address, ApiKey, FamilyMember } from '../api/schemas.js';
import type { Column } from './table.js';

const joined = (parts: ReadonlyArray<string | null | undefined>, separator: string) =>
  parts.filter((part): part is string => typeof part === 'string' && part !== '').join(separator);

export function formatAddress(address: Address | null | undefined): string {
  if (!address) return '';
  const { line1, line2, city, state, postalCode, country } = address;
  return joined([line1, line2, joined([postalCode, city], ' '), state, country], ', ');
}

export const apiKeyColumns: Column<ApiKey>[] = [
  { key: 'id', label: 'Key ID', value: (k) => k.id },
  { key: 'name', label: 'Key name', value: (k) => k.name },
  { key: 'academyIds', label: 'Academies', value: (k) => k.academyIds.join(',') },
  { key: 'user.id', label: 'Owner ID', value: (k) => k.user?.id },
  { key: 'user.name', label: 'Owner', value: (k) => k.user?.name },
  { key: 'user.email', label: 'Owner email', value: (k) => k.user?.email },
];

export const academyColumns: Column<Academy>[] = [
  { key: 'id', label: 'ID', value: (a) => a.id },
  { key: 'name', label: 'Name', value: (a) => a.name },
  { key: 'currency', label: 'Currency', value: (a) => a.currency },
  { key: 'email', label: 'Email', value: (a) => a.email },
  { key: 'phone', label: 'Phone', value: (a) => a.phone },
  { key: 'address', label: 'Address', value: (a) => formatAddress(a.address) },
  { key: 'coordinates', label: 'Coordinates', value: (a) => joined([a.coordinates?.lat, a.coordinates?.lng].map((n) => (typeof n === 'number' ? String(n) : undefined)), ',') },
  { key: 'franchiseId', label: 'Franchise', value: (a) => a.franchiseId },
  { key: 'logoUrl', label: 'Logo', value: (a) => a.logoUrl },
  { key: 'createdAt', label: 'Created', value: (a) => a.createdAt },
];

export const familyColumns: Column<FamilyMember>[] = [
  { key: 'id', label: 'ID', value: (m) => m.id },
  { key: 'firstName', label: 'First name', value: (m) => m.firstName },
  { key: 'lastName', label: 'Last name', value: (m) => m.lastName },
  { key: 'academyId', label: 'Academy', value: (m) => m.academyId },
  { key: 'primaryFamilyMember', label: 'Primary', value: (m) => m.primaryFamilyMember },
];
