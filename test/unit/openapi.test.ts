/**
 * The OpenAPI document as the package ships it (dist/openapi.json, which
 * `npm test` builds first): valid for the validators users run on such
 * documents, stating what the spec says of each value beyond its type, while
 * the client stays tolerant of values not in that form.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { createClient, GymApiError, type Id } from '../../src/index.js';
import { openApiDocument } from '../../src/api/openapi.js';
import { errorBodyAsRead } from '../../src/api/schemas.js';
import { OPERATIONS, schemas } from '../../src/operations/index.js';
import { parseJsonExact } from '../../src/json/exact.js';
import { DEMO_DATA } from '../../src/sandbox/demo-data.js';
import { ROOT } from '../helpers/cli.js';
import { undescribed } from '../helpers/described.js';

type Json = Record<string, unknown>;

const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string; license: string };
const shipped = JSON.parse(readFileSync(path.join(ROOT, 'dist', 'openapi.json'), 'utf8')) as Json;
/** A fresh copy: swagger-parser resolves references in place. */
const documentCopy = (): Json => structuredClone(shipped);

const components = (shipped.components as { schemas: Record<string, Json> }).schemas;

/** Ajv at its strictest (unknown keywords and formats are errors), the formats asserted, the components as one schema. */
function documentValidator() {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  // ajv-formats is CommonJS: its default export is the plugin itself.
  (addFormats as unknown as (ajv: Ajv2020) => void)(ajv);
  const rewrite = (schema: unknown) => JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"openapi#/$defs/'));
  ajv.addSchema({ $id: 'openapi', $defs: rewrite(components) });
  return (name: string) => ajv.compile({ $ref: `openapi#/$defs/${name}` });
}

describe('the validators users run on OpenAPI documents', () => {
  it('dist/openapi.json is what openApiDocument() builds', () => {
    expect(shipped).toEqual(openApiDocument(pkg.version));
  });

  it('swagger-parser validates it, and still refuses what it refused before: a description on a server variable (a bug of its own; the description is on the server now)', async () => {
    await expect(SwaggerParser.validate(documentCopy() as never)).resolves.toBeDefined();
    const before = documentCopy() as { servers: Array<{ variables: { baseUrl: Json } }> };
    before.servers[0]!.variables.baseUrl.description = 'The API base address';
    await expect(SwaggerParser.validate(before as never)).rejects.toThrow(/variables\/baseUrl must NOT have unevaluated properties/);
  });

  it('the seriousme validator finds it valid, and refuses a licence with both an identifier and a URL', async () => {
    expect(await new Validator().validate(documentCopy())).toEqual({ valid: true });
    const both = documentCopy() as { info: { license: Json } };
    both.info.license.url = 'https://opensource.org/license/mit';
    expect((await new Validator().validate(both)).valid).toBe(false);
  });

  it("every schema in it compiles with Ajv in strict mode, and the sandbox's demo data meets them", () => {
    const validator = documentValidator();
    const check = (name: string, value: unknown) => {
      const validate = validator(name);
      expect(validate(value), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
    };
    for (const { key } of DEMO_DATA.keys) check('ApiKey', key);
    for (const academy of DEMO_DATA.academies) check('Academy', academy);
    for (const member of DEMO_DATA.members) check('FamilyMember', member);
    check('ErrorBody', { message: 'Unauthorized', correlationId: '019a7e3c-5b1d-7f42-9c3e-0a1b2c3d4e5f' });
  });

  it('every error has message and correlationId, both strings (spec §1, §2.8, §7 rule 1), at any status: the document and the exported schema require them, the client does not', () => {
    const validate = documentValidator()('ErrorBody');
    const correlationId = '019a7e3c-5b1d-7f42-9c3e-0a1b2c3d4e5f';
    expect(validate({ message: 'Unauthorized', correlationId })).toBe(true);
    expect(z.safeParse(schemas.errorBody(), { message: 'Unauthorized', correlationId }).success).toBe(true);
    for (const body of [{ message: 'Unauthorized' }, { correlationId }, { message: null, correlationId }, { message: 'Unauthorized', correlationId: null }]) {
      expect(validate(body)).toBe(false);
      expect(z.safeParse(schemas.errorBody(), body).success).toBe(false);
      // What the client reads an answer with: a gateway's error body may have neither.
      expect(z.safeParse(errorBodyAsRead(), body).success).toBe(true);
    }
    const operations = Object.values(shipped.paths as Record<string, { get: { responses: Record<string, Json> } }>);
    expect(operations).toHaveLength(OPERATIONS.length);
    for (const { get } of operations) {
      expect(get.responses.default).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } } });
    }
  });

  it("its licence is the package's, by SPDX identifier", () => {
    expect((shipped.info as Json).license).toEqual({ name: pkg.license, identifier: pkg.license });
  });
});

const setAt = (value: Json, at: string, to: unknown): Json => {
  const copy = structuredClone(value);
  const keys = at.split('.');
  let target = copy;
  for (const key of keys.slice(0, -1)) target = target[key] as Json;
  target[keys.at(-1)!] = to;
  return copy;
};

/** The property schema the document gives `at` (a dotted path) in component `name`. */
function propertySchema(name: string, at: string): Json {
  let schema = components[name]!;
  for (const key of at.split('.')) {
    const object = (schema.anyOf as Json[] | undefined)?.find((branch) => branch.type === 'object') ?? schema;
    schema = (object.properties as Record<string, Json>)[key]!;
  }
  return schema;
}

/** A value of each component in the form the spec gives, and the client's schema for it. */
const EXAMPLES: Record<string, { value: Json; client: z.core.$ZodType }> = {
  ApiKey: { value: DEMO_DATA.keys[0]!.key as unknown as Json, client: schemas.apiKey() },
  Academy: { value: DEMO_DATA.academies[0] as unknown as Json, client: schemas.academy() },
  FamilyMember: { value: DEMO_DATA.members[0] as unknown as Json, client: schemas.familyMember() },
  ErrorBody: { value: { message: 'Resource not found', correlationId: '019a7e3c-5b1d-7f42-9c3e-0a1b2c3d4e5f' }, client: errorBodyAsRead() },
};

const UUID_V67 = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[67][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$';
const PHONE = '^\\+[1-9][0-9 ().-]*$';
const CREATED_AT = '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$';

/** Spec §2: what it says of each value beyond its type; a value in that form, and one not. */
const STATED: Array<{ name: string; at: string; keywords: Json; good: unknown; bad: unknown }> = [
  { name: 'ApiKey', at: 'user.email', keywords: { format: 'email' }, good: 'rita@example.com', bad: 'rita at example.com' },
  { name: 'Academy', at: 'email', keywords: { format: 'email' }, good: 'ola@example.com', bad: 'nobody' },
  { name: 'Academy', at: 'logoUrl', keywords: { format: 'uri' }, good: 'https://images.example.com/logo.png', bad: 'logo.png' },
  { name: 'FamilyMember', at: 'photoUrl.thumbnail', keywords: { format: 'uri' }, good: 'https://images.example.com/t.jpg', bad: '/t.jpg' },
  { name: 'FamilyMember', at: 'photoUrl.large', keywords: { format: 'uri' }, good: 'https://images.example.com/l.jpg', bad: 'l.jpg' },
  // An ISO 8601 date-time, but not in the spec's form; then not a date-time at all.
  { name: 'Academy', at: 'createdAt', keywords: { format: 'date-time', pattern: CREATED_AT }, good: '2019-03-04T09:30:00Z', bad: '2019-03-04T09:30:00.000+01:00' },
  { name: 'Academy', at: 'createdAt', keywords: { format: 'date-time' }, good: '2019-03-04T09:30:00Z', bad: '2019-03-04 09:30' },
  { name: 'Academy', at: 'currency', keywords: { pattern: '^[A-Z]+$' }, good: 'EUR', bad: 'eur' },
  // A plus, a country code, digits and the usual separators.
  { name: 'Academy', at: 'phone', keywords: { pattern: PHONE }, good: '+351213000001', bad: '213000001' },
  { name: 'Academy', at: 'phone', keywords: { pattern: PHONE }, good: '+44 (0)20 7946-0000', bad: '+ not a phone' },
  { name: 'Academy', at: 'phone', keywords: { pattern: PHONE }, good: '+1 512.555.0142', bad: '+0351213000001' },
  { name: 'Academy', at: 'coordinates.lat', keywords: { minimum: -90, maximum: 90 }, good: -90, bad: 90.5 },
  { name: 'Academy', at: 'coordinates.lng', keywords: { minimum: -180, maximum: 180 }, good: 180, bad: -180.5 },
  // Upper-case hex and version 6 are fine; a version 4 UUID is not time-ordered.
  { name: 'ErrorBody', at: 'correlationId', keywords: { format: 'uuid', pattern: UUID_V67 }, good: '1EC9414C-232A-6B00-B3C8-9E6BDECED846', bad: 'not-a-uuid' },
  { name: 'ErrorBody', at: 'correlationId', keywords: { format: 'uuid' }, good: '019a7e3c-5b1d-7f42-9c3e-0a1b2c3d4e5f', bad: '9b2f0c1e-3a4d-4e5f-8a6b-7c8d9e0f1a2b' },
];

describe('what the spec says of values beyond their types: the document states it, the client does not check it', () => {
  const validator = documentValidator();

  it.each(STATED)('$name $at: the document refuses $bad, the client keeps it', ({ name, at, keywords, good, bad }) => {
    const { value: base, client } = EXAMPLES[name]!;
    expect(propertySchema(name, at)).toMatchObject(keywords);
    const validate = validator(name);
    expect(validate(setAt(base, at, good)), JSON.stringify(validate.errors)).toBe(true);
    expect(validate(setAt(base, at, bad))).toBe(false);
    // Null stays allowed where the spec says nothing of nullability (§2.9); an error's correlationId is "a string" (§7 rule 1).
    expect(validate(setAt(base, at, null))).toBe(at !== 'correlationId');
    // The client shows the value as it came.
    expect(z.parse(client, setAt(base, at, bad))).toEqual(setAt(base, at, bad));
  });

  it('states nothing the spec does not: only those fields carry keywords beyond their types', () => {
    const stated = new Set(STATED.map(({ name, at }) => `${name}.${at}`));
    const extra: string[] = [];
    const walk = (schema: Json, where: string) => {
      const keywords = Object.keys(schema).filter((keyword) => !['type', 'properties', 'required', 'additionalProperties', 'anyOf', 'items', 'description'].includes(keyword));
      if (keywords.length > 0 && !stated.has(where)) extra.push(`${where}: ${keywords.join(', ')}`);
      for (const branch of (schema.anyOf as Json[] | undefined) ?? []) walk(branch, where);
      if (schema.items) walk(schema.items as Json, `${where}[]`);
      for (const [property, inner] of Object.entries((schema.properties as Record<string, Json> | undefined) ?? {})) walk(inner, `${where}.${property}`);
    };
    for (const [name, schema] of Object.entries(components)) walk(schema, name);
    expect(extra).toEqual([]);
  });

  it("gymctl schema prints the document's own schema of each operation (its component, an array of it for a list), saying the client is more tolerant", async () => {
    const { outputJsonSchema } = await import('../../src/commands/schema/run.js');
    for (const operation of OPERATIONS) {
      const { $schema, ...printed } = outputJsonSchema(operation.name);
      expect($schema).toBe('https://json-schema.org/draft/2020-12/schema');
      const component = components[operation.openapi.component]!;
      expect(operation.list ? printed.items : printed).toEqual(component);
      expect(component.description).toMatch(/checks the types only/);
    }
  });
});

describe('what each field means (spec §2), said once beside it in the schemas', () => {
  it('every component, every record in it and every property, nested ones and ids too, has a description', () => {
    expect(Object.keys(components)).toEqual([...OPERATIONS.map((operation) => operation.openapi.component), 'ErrorBody']);
    for (const [name, schema] of Object.entries(components)) expect(undescribed(schema, name)).toEqual([]);
    expect(propertySchema('Academy', 'coordinates.lat').description).toMatch(/^Latitude/);
    expect(propertySchema('FamilyMember', 'academyId').description).toBe('Academy the member belongs to');
  });

  it('a field left undescribed is found', () => {
    const bare = setAt(components.Academy!, 'properties.address.anyOf.0.properties.city', { type: ['string', 'null'] });
    expect(undescribed(bare, 'Academy')).toEqual(['Academy.address.city']);
  });
});

describe('ids: path parameters and response ids agree', () => {
  const paths = shipped.paths as Record<string, { get: { parameters?: Array<{ in: string; schema: Json }> } }>;
  const pathIds = Object.values(paths).flatMap(({ get }) => (get.parameters ?? []).filter((parameter) => parameter.in === 'path').map((parameter) => parameter.schema));
  const responseIds = [
    propertySchema('ApiKey', 'id'),
    propertySchema('ApiKey', 'user.id'),
    propertySchema('ApiKey', 'academyIds').items as Json,
    propertySchema('Academy', 'id'),
    propertySchema('Academy', 'franchiseId'),
    propertySchema('FamilyMember', 'id'),
    propertySchema('FamilyMember', 'academyId'),
  ];

  it('both are integers and nothing more, as the spec says (§2, §4): no range the spec does not state, only what the id is', () => {
    expect(pathIds).toHaveLength(OPERATIONS.filter((operation) => operation.param).length);
    for (const schema of [...pathIds, ...responseIds]) {
      expect(Object.keys(schema).filter((keyword) => keyword !== 'description')).toEqual(['type']);
      expect([schema.type].flat().filter((type) => type !== 'null')).toEqual(['integer']);
    }
    // A field's id says what it identifies; an element of academyIds is described by its array.
    expect(responseIds.filter((schema) => typeof schema.description === 'string')).toHaveLength(responseIds.length - 1);
  });

  it('the client accepts in a response every integer id the document allows, 0, negative and beyond 2^64 alike, with every digit', () => {
    const validate = documentValidator()('ApiKey');
    for (const id of ['0', '-7', '9223372036854775808', '18446744073709551617']) {
      const text = `{"id":${id},"academyIds":[${id}],"user":{"id":${id}}}`;
      expect(validate(JSON.parse(text))).toBe(true);
      const parsed = z.parse(schemas.apiKey(), parseJsonExact(text));
      expect(String(parsed.id)).toBe(id);
      expect(parsed.academyIds.map(String)).toEqual([id]);
    }
  });

  it('and refuses what the document refuses: a fraction, a string', () => {
    const validate = documentValidator()('ApiKey');
    for (const id of ['1.5', '"1"']) {
      const text = `{"id":${id},"academyIds":[]}`;
      expect(validate(JSON.parse(text))).toBe(false);
      expect(z.safeParse(schemas.apiKey(), parseJsonExact(text)).success).toBe(false);
    }
  });

  it("gymctl's client sends fewer than the document allows: ids from 1 to 2^63−1, refusing others before any request", async () => {
    const client = createClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'key_1234567890', retries: 0 });
    try {
      for (const id of [0, -1, 2n ** 63n] as Id[]) {
        const failure = await client.getAcademy(id).catch((error: unknown) => error);
        expect(failure).toBeInstanceOf(GymApiError);
        expect((failure as GymApiError).kind).toBe('usage');
      }
    } finally {
      await client.close();
    }
  });
});
