/**
 * The OpenAPI document as the package ships it (dist/openapi.json, which
 * `npm test` builds first): valid for the validators users run on such
 * documents.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/api/openapi.js';
import { DEMO_DATA } from '../../src/sandbox/demo-data.js';
import { ROOT } from '../helpers/cli.js';

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

  it("its licence is the package's, by SPDX identifier", () => {
    expect((shipped.info as Json).license).toEqual({ name: pkg.license, identifier: pkg.license });
  });
});
