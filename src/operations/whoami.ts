/** GET /me, as `gymctl whoami`: the key in use, the academies it is scoped to, and its owner. */
import * as z from 'zod/mini';
import { described, email, envelope, identifier, maybe, named, text, type Id } from '../api/schemas.js';
import { once } from '../api/once.js';
import { defineOperation } from './declare.js';

/** 2.2 User: the owner of an API key. */
const user = once(() =>
  described(
    z.looseObject({
      id: described(identifier(), 'User identifier'),
      name: described(text(), "User's name"),
      email: described(email(), "User's e-mail address"),
    }),
    'A user (spec §2.2): the owner of an API key.',
  ),
);

/** 2.1 API key, returned by GET /me. */
const apiKey = once(() =>
  described(
    z.looseObject({
      id: described(identifier(), 'Identifier of the calling API key'),
      name: described(text(), 'Label of the key'),
      academyIds: described(z.array(identifier()), 'Identifiers of the academies the key is scoped to'),
      user: described(maybe(user()), 'Owning user'),
    }),
    'An API key (spec §2.1): the key that made the call, the academies it is scoped to, and its owning user.',
  ),
);

export const schemas = { user, apiKey, meResponse: once(() => envelope(apiKey())) };

/** A user (spec §2.2): the owner of an API key. */
export type User = {
  /** User identifier */
  id: Id;
  /** User's name */
  name?: string | null;
  /** User's e-mail address */
  email?: string | null;
};

/** An API key (spec §2.1): the key that made the call, the academies it is scoped to, and its owning user. */
export type ApiKey = {
  /** Identifier of the calling API key */
  id: Id;
  /** Label of the key */
  name?: string | null;
  /** Identifiers of the academies the key is scoped to */
  academyIds: Id[];
  /** Owning user */
  user?: User | null;
};

const columns = [
  { key: 'id', label: 'Key ID', value: (k: ApiKey) => k.id },
  { key: 'name', label: 'Key name', value: (k: ApiKey) => k.name },
  { key: 'academyIds', label: 'Academies', value: (k: ApiKey) => k.academyIds.join(','), display: (k: ApiKey) => k.academyIds.join(', ') },
  { key: 'user.id', label: 'Owner ID', value: (k: ApiKey) => k.user?.id },
  { key: 'user.name', label: 'Owner', value: (k: ApiKey) => k.user?.name },
  { key: 'user.email', label: 'Owner email', value: (k: ApiKey) => k.user?.email },
];

export const whoami = defineOperation({
  name: 'whoami',
  question: 'which key is in use and what it may see',
  topic: 'your key',
  method: 'GET',
  path: '/me',
  schema: named<ApiKey>(apiKey),
  list: false,
  client: { method: 'getMe', operation: 'me', summary: 'The calling key, the academies it is scoped to, and its owner (GET /me).' },
  openapi: {
    component: 'ApiKey',
    tag: { name: 'keys', description: 'The calling API key' },
    summary: 'The calling API key, the academies it is scoped to, and its owner',
    description: 'Returns the key that made the call, the academies it is scoped to (academyIds), and its owning user.',
    ok: 'The API key',
    errors: ['401'],
  },
  command: {
    name: 'whoami',
    description: 'show the API key in use, the academies it is scoped to, and its owner',
    examples: ['gymctl whoami', "gymctl whoami --json | jq -r '.academyIds[]'", 'gymctl whoami --profile work'],
  },
  views: { card: columns },
  sandbox: { answer: (_data, _id, key) => key },
});
