/**
 * JSON Schema from the zod schemas, for `gymctl schema` and the OpenAPI
 * description: an identifier (a number or, beyond 2^53, a bigint) is
 * simply an integer in JSON. What each field means comes from zod's global
 * registry (`described` in schemas.ts), as in any JSON Schema zod makes.
 */
import * as z from 'zod/mini';
import { stated } from './schemas.js';
import { isIntegerUnion } from './validation.js';

export interface JsonSchemaOptions {
  /**
   * Also state what the spec says of values beyond their types (formats,
   * patterns, ranges: `stated` in schemas.ts), which the client does not
   * check. The OpenAPI document does, and `gymctl schema`, which prints
   * the document's own schema.
   */
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
