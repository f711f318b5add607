/** What each field means, as every JSON Schema of a record must say it: the OpenAPI document, `gymctl schema` and the MCP tools' output schemas. */

type Json = Record<string, unknown>;

const said = (json: Json) => typeof json.description === 'string' && json.description.trim() !== '';

/**
 * Where in `schema` a record (an object with properties) or a property has
 * no description, or an empty one, as dotted paths from `where` (`[]` for an
 * array's items); through `anyOf` branches (a nullable record) and items.
 */
export function undescribed(schema: Json, where: string): string[] {
  const missing: string[] = schema.properties && !said(schema) ? [where] : [];
  for (const branch of (schema.anyOf as Json[] | undefined) ?? []) missing.push(...undescribed(branch, where));
  if (schema.items) missing.push(...undescribed(schema.items as Json, `${where}[]`));
  for (const [property, inner] of Object.entries((schema.properties as Record<string, Json> | undefined) ?? {})) {
    if (!said(inner)) missing.push(`${where}.${property}`);
    missing.push(...undescribed(inner, `${where}.${property}`));
  }
  return missing;
}

/** The `data` of a tool's output schema (the envelope and a batch's `notFound` are the tool's, not the API's records). */
export function outputData(outputSchema: Json | undefined): Json {
  return (outputSchema?.properties as Record<string, Json> | undefined)?.data ?? {};
}
