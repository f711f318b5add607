/**
 * The OpenAPI 3.1 description of the API (spec §4), generated from the zod
 * schemas: the same declarations the client validates with and the sandbox
 * checks its data with. The build writes it to dist/openapi.json.
 */
import type * as z from 'zod/mini';
import { toJsonSchema } from './json-schema.js';
import { schemas } from './schemas.js';

type JsonSchema = Record<string, unknown>;

function component(schema: z.core.$ZodType): JsonSchema {
  const { $schema: _dialect, ...rest } = toJsonSchema(schema, { spec: true });
  return rest;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const json = (schema: JsonSchema, description: string) => ({ description, content: { 'application/json': { schema } } });

const envelope = (data: JsonSchema) => ({ type: 'object', required: ['data'], properties: { data }, additionalProperties: {} });

const errors = (...which: Array<'401' | '404'>) =>
  Object.fromEntries(
    which.map((status) => [
      status,
      json(ref('ErrorBody'), status === '401' ? 'Missing or invalid API key (message "Unauthorized")' : 'No such resource (message "Resource not found")'),
    ]),
  );

/**
 * An identifier in a path is what identifiers are in responses: an integer,
 * unbounded, as the spec says (§2, §4), so that every id the API hands out
 * is one the document lets a client send back. (gymctl's own client sends
 * only ids from 1 to 2^63−1, a subset: see ids.ts.)
 */
const idParameter = (name: string, description: string) => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: { type: 'integer' },
});

export function openApiDocument(version: string): JsonSchema {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Gym management read API',
      version,
      description:
        "The three read operations of the gym (academy) management API, as gymctl knows them. The API specification fixes no status codes: the 200, 401 and 404 here are those of gymctl's sandbox. Fields may be null or absent unless the specification says otherwise; unknown fields are allowed. The formats, patterns and ranges are those the specification states; gymctl's client does not check them, and shows a value not in that form as it came.",
      license: { name: 'MIT', identifier: 'MIT' },
    },
    // The variable's meaning is said on the server: swagger-parser refuses a server variable's `description`, which OpenAPI 3.1 allows.
    servers: [
      {
        url: '{baseUrl}',
        description: "The API's base address (the variable baseUrl); its default is gymctl's sandbox",
        variables: { baseUrl: { default: 'http://127.0.0.1:4010' } },
      },
    ],
    security: [{ apiKey: [] }],
    paths: {
      '/me': {
        get: {
          operationId: 'getMe',
          summary: 'The calling API key, the academies it is scoped to, and its owner',
          responses: { '200': json(envelope(ref('ApiKey')), 'The API key'), ...errors('401') },
        },
      },
      '/academies/{academyId}': {
        get: {
          operationId: 'getAcademy',
          summary: 'One academy',
          parameters: [idParameter('academyId', 'The academy identifier')],
          responses: { '200': json(envelope(ref('Academy')), 'The academy'), ...errors('401', '404') },
        },
      },
      '/members/{memberId}/family': {
        get: {
          operationId: 'listFamily',
          summary: 'The other members of the family of a member (the member itself excluded)',
          parameters: [idParameter('memberId', 'The member identifier')],
          responses: {
            '200': json(envelope({ type: 'array', items: ref('FamilyMember') }), 'The linked members, possibly none'),
            ...errors('401', '404'),
          },
        },
      },
    },
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
      schemas: {
        ApiKey: component(schemas.apiKey()),
        Academy: component(schemas.academy()),
        FamilyMember: component(schemas.familyMember()),
        ErrorBody: component(schemas.errorBody()),
      },
    },
  };
}
