/**
 * JSON Schema from the zod schemas, for `gymctl schema` and the OpenAPI
 * description: an identifier (a number or, beyond 2^53, a bigint) is
 * simply an integer in JSON.
 */
import * as z from 'zod/mini';
import { isIntegerUnion } from './validation.js';

export function toJsonSchema(schema: z.core.$ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, {
    unrepresentable: 'any',
    override: (ctx) => {
      if (!isIntegerUnion(ctx.zodSchema as z.core.$ZodType)) return;
      const json = ctx.jsonSchema as Record<string, unknown>;
      for (const key of Object.keys(json)) delete json[key];
      json.type = 'integer';
    },
  }) as Record<string, unknown>;
}
