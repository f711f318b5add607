/**
 * JSON Schema from the zod schemas, for `gymctl schema` and the OpenAPI
 * description: an identifier (a number or, beyond 2^53, a bigint) is
 * simply an integer in JSON.
 */
import * as z from 'zod/mini';
import { stated } from './schemas.js';
import { isIntegerUnion } from './validation.js';

export interface JsonSchemaOptions {
  /**
   * Also state what the spec says of values beyond their types (formats,
   * patterns, ranges: `stated` in schemas.ts), which the client does not
   * check. The OpenAPI document does; `gymctl schema`, the schema of what
   * gymctl prints, does not.
   */
  spec?: boolean;
}

export function toJsonSchema(schema: z.core.$ZodType, options: JsonSchemaOptions = {}): Record<string, unknown> {
  return z.toJSONSchema(schema, {
    unrepresentable: 'any',
    ...(options.spec ? { metadata: stated } : {}),
    override: (ctx) => {
      if (!isIntegerUnion(ctx.zodSchema as z.core.$ZodType)) return;
      const json = ctx.jsonSchema as Record<string, unknown>;
      for (const key of Object.keys(json)) delete json[key];
      json.type = 'integer';
    },
  }) as Record<string, unknown>;
}
