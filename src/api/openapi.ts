/** The OpenAPI 3.1 description of the API (spec §4), from the operations' declarations; the build writes dist/openapi.json. */
import * as z from 'zod/mini';
import type { OperationDeclaration } from '../operations/declare.js';
import { OPERATIONS } from '../operations/index.js';
import { errorBody, stated } from './schemas.js';
import { isIntegerUnion } from './validation.js';

type JsonSchema = Record<string, unknown>;

/** A schema as JSON Schema, with what the spec states beyond types (`stated`): an identifier (number or bigint) is an integer. */
function component(schema: z.core.$ZodType): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    unrepresentable: 'any',
    override: (ctx) => {
      const json = ctx.jsonSchema as JsonSchema;
      if (isIntegerUnion(ctx.zodSchema)) {
        // An integer, and nothing else of the union's branches; its description stays.
        const { description } = json;
        for (const key of Object.keys(json)) delete json[key];
        if (description !== undefined) json.description = description;
        json.type = 'integer';
      }
      Object.assign(json, stated.get(ctx.zodSchema));
    },
  }) as JsonSchema;
  return rest;
}

/** What gymctl's client accepts beyond what the document states. */
const TOLERANCE = "gymctl's client checks the types only: it shows a value not in a stated format or pattern as it came.";

/** An operation's record as its OpenAPI component, which `gymctl schema` prints too: its schema's description, and the tolerance. */
export const componentOf = (declaration: OperationDeclaration): JsonSchema => {
  const { description, ...record } = component(declaration.schema());
  return { description: `${description} ${TOLERANCE}`, ...record };
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const json = (schema: JsonSchema, description: string) => ({ description, content: { 'application/json': { schema } } });

const envelope = (data: JsonSchema) => ({ type: 'object', required: ['data'], properties: { data }, additionalProperties: {} });

/** The two errors the spec names (§4 rule 4, §7) at the sandbox's statuses; any other as `default`, as the spec fixes no status codes. */
const ERRORS = {
  '401': 'Missing or invalid API key (message "Unauthorized")',
  '404': 'No such resource (message "Resource not found")',
  default: 'Any other error, at whatever status code: the specification fixes none, and says every error has this body',
};

const errors = (which: ReadonlyArray<'401' | '404'>) => Object.fromEntries([...which, 'default' as const].map((status) => [status, json(ref('ErrorBody'), ERRORS[status])]));

function pathItem(declaration: OperationDeclaration) {
  const { openapi, param } = declaration;
  const record = ref(openapi.component);
  return {
    [declaration.method.toLowerCase()]: {
      operationId: declaration.client.method,
      tags: [openapi.tag.name],
      summary: openapi.summary,
      description: openapi.description,
      // An id in a path is an unbounded integer, as in responses (§2, §4): every id handed out can be sent back.
      ...(param
        ? { parameters: [{ name: param.name, in: 'path', required: true, description: `The ${param.what.replace(/ id$/, '')} identifier`, schema: { type: 'integer' } }] }
        : {}),
      responses: { '200': json(envelope(declaration.list ? { type: 'array', items: record } : record), openapi.ok), ...errors(openapi.errors) },
    },
  };
}

export function openApiDocument(version: string, operations: readonly OperationDeclaration[] = OPERATIONS): JsonSchema {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Gym management read API',
      version,
      description: `The read operations of the gym (academy) management API, as gymctl knows them. The API specification fixes no status codes: the 200, 401 and 404 here are those of gymctl's sandbox. The specification leaves requiredness and nullability open: a field may be null or absent, except the ids (id, academyId, user.id), academyIds and primaryFamilyMember, which gymctl needs to show a record, and an error's message and correlationId, which the specification says every error has. Unknown fields are allowed. The formats, patterns and ranges are those the specification states; gymctl's client does not check them, and shows a value not in that form as it came.`,
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
    tags: [...new Map(operations.map(({ openapi }) => [openapi.tag.name, openapi.tag])).values()],
    paths: Object.fromEntries(operations.map((declaration) => [declaration.path, pathItem(declaration)])),
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
      schemas: {
        ...Object.fromEntries(operations.map((declaration) => [declaration.openapi.component, componentOf(declaration)])),
        ErrorBody: component(errorBody()),
      },
    },
  };
}
