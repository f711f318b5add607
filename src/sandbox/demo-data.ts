/**
 * The sandbox's demo data, which examples and tests name: two keys (one scoped to four academies, one to none), five
 * academies (the fifth outside every key's scope), and families of several sizes: one with a primary member, one empty,
 * one whose names hold commas, quotes and a line break. Some optional fields are null or absent, as the spec allows.
 */
import type { SandboxData } from './data.js';

export const DEMO_KEY = 'demo_key_all_academies';
export const DEMO_KEY_NO_ACADEMIES = 'demo_key_no_academies';

const owner = { id: 9001, name: 'Rita Moreira', email: 'rita.moreira@example.com' };

const photo = (id: number) => ({
  thumbnail: `https://images.example.com/members/${id}/thumb.jpg`,
  large: `https://images.example.com/members/${id}/large.jpg`,
});

const member = (id: number, academyId: number, firstName: string, lastName: string, primary = false) => ({
  id,
  academyId,
  firstName,
  lastName,
  photoUrl: photo(id),
  primaryFamilyMember: primary,
});

export const DEMO_DATA = {
  keys: [
    {
      secret: DEMO_KEY,
      key: { id: 101, name: 'Front desk (demo)', academyIds: [1, 2, 3, 4], user: owner },
    },
    {
      secret: DEMO_KEY_NO_ACADEMIES,
      key: { id: 102, name: 'Reporting, unscoped (demo)', academyIds: [], user: { id: 9002, name: 'Sam Okafor', email: 'sam.okafor@example.com' } },
    },
  ],
  academies: [
    {
      id: 1,
      name: 'Alfama Jiu-Jitsu',
      currency: 'EUR',
      email: 'ola@alfama-bjj.example.com',
      phone: '+351213000001',
      address: { line1: 'Rua dos Remédios 12', line2: null, city: 'Lisboa', state: null, postalCode: '1100-443', country: 'PT' },
      coordinates: { lat: 38.7118, lng: -9.1299 },
      franchiseId: 10,
      logoUrl: 'https://images.example.com/academies/1/logo.png',
      createdAt: '2019-03-04T09:30:00Z',
    },
    {
      id: 2,
      name: 'Eastside Grappling Club',
      currency: 'USD',
      email: 'hello@eastside-grappling.example.com',
      phone: '+15125550142',
      address: { line1: '1801 E 6th St', line2: 'Suite 200', city: 'Austin', state: 'TX', postalCode: '78702', country: 'US' },
      coordinates: { lat: 30.2626, lng: -97.7236 },
      franchiseId: 20,
      logoUrl: 'https://images.example.com/academies/2/logo.png',
      createdAt: '2020-07-15T14:00:00Z',
    },
    {
      id: 3,
      name: 'Shoreditch Martial Arts',
      currency: 'GBP',
      email: 'team@shoreditch-ma.example.com',
      phone: '+442071234567',
      address: { line1: '45 Curtain Road', city: 'London', state: null, postalCode: 'EC2A 3PT', country: 'GB' },
      coordinates: { lat: 51.5246, lng: -0.0797 },
      franchiseId: 10,
      logoUrl: null,
      createdAt: '2021-01-20T08:15:00Z',
    },
    {
      id: 4,
      name: 'Shibuya Judo Dojo',
      currency: 'JPY',
      email: 'info@shibuya-judo.example.com',
      phone: '+81334567890',
      address: { line1: '2-21-1 Shibuya', line2: '5F', city: 'Shibuya-ku', state: 'Tokyo', postalCode: '150-0002', country: 'JP' },
      coordinates: { lat: 35.6595, lng: 139.7005 },
      franchiseId: null,
      logoUrl: 'https://images.example.com/academies/4/logo.png',
      createdAt: '2022-11-02T00:00:00Z',
    },
    {
      id: 5,
      name: 'Copacabana Fight Team',
      currency: 'BRL',
      email: 'contato@copa-fight.example.com',
      phone: '+5521987654321',
      address: { line1: 'Av. Nossa Senhora de Copacabana 680', line2: null, city: 'Rio de Janeiro', state: 'RJ', postalCode: '22050-002', country: 'BR' },
      coordinates: { lat: -22.9711, lng: -43.1863 },
      franchiseId: 30,
      logoUrl: 'https://images.example.com/academies/5/logo.png',
      createdAt: '2023-05-09T18:45:00Z',
    },
  ],
  members: [
    // A family of three with a primary member.
    member(501, 1, 'Ana', 'Costa', true),
    member(502, 1, 'Bruno', 'Costa'),
    member(503, 1, 'Clara', 'Costa'),
    // A family of two, neither primary.
    member(510, 2, 'Dana', 'Whitfield'),
    member(511, 2, 'Eli', 'Whitfield'),
    // A member with no family: an empty list.
    member(520, 3, 'Farah', 'Haddad'),
    // A family of five across two academies.
    member(530, 3, 'George', 'Adeyemi', true),
    member(531, 3, 'Hana', 'Adeyemi'),
    member(532, 4, 'Ines', 'Adeyemi'),
    member(533, 4, 'Jomo', 'Adeyemi'),
    member(534, 3, 'Kemi', 'Adeyemi'),
    // Names that test quoting: commas, quotes and a line break.
    member(550, 2, 'Ana, "Nana"', "O'Brien", true),
    member(551, 2, 'Line\nBreak', 'Smith, Jr.'),
    member(552, 2, 'Zoë', '"The Hammer" Kowalski'),
    // A family in the academy no demo key is scoped to.
    member(540, 5, 'Lucas', 'Pereira', true),
    member(541, 5, 'Marina', 'Pereira'),
  ],
  families: [
    [501, 502, 503],
    [510, 511],
    [530, 531, 532, 533, 534],
    [550, 551, 552],
    [540, 541],
  ],
} satisfies SandboxData;
