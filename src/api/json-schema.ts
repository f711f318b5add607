/** JSON Schema from the zod schemas, for `gymctl schema` and the OpenAPI document: an identifier (number or bigint) is an integer. */
import * as z from 'zod/mini';
import { stated } from './schemas.js';
import { isIntegerUnion } from './validation.js';

export interface JsonSchemaOptions {
  /** Also state the formats, patterns and ranges the spec gives (`stated`), which the client does not check. */
  spec?: boolean;
}

export function toJsonSchema(schema: z.core.$ZodType, options: JsonSchemaOptions = {}): Record<string, unknown> {
  return z.toJSONSchema(schema, {
    unrepresentable: 'any',
    override: (ctx) => {
      const zodSchema = ctx.zodSchema as z.core.$ZodType;
      const json = ctx.jsonSchema as Record<string, unknown>;
      if (isIntegerUnion(zodSchema)) {
        // An integer, and nothing else of the union's branches; its description stays.
        const { description } = json;
        for (const key of Object.keys(json)) delete json[key];
        if (description !== undefined) json.description = description;
        json.type = 'integer';
      }
      if (options.spec) Object.assign(json, stated.get(zodSchema));
    },
  }) as Record<string, unknown>;
}
