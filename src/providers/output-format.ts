// What the adapters share about a typed turn's output format (`ModelRequest.output`): the name the vendor
// is given for it, and whether OpenAI's strict mode can take the schema as it is.

/** The name a `json_schema` response format (OpenAI) or output (AI SDK) is given. */
export const outputFormatName = 'output';

/**
 * Whether OpenAI's strict structured outputs accept `schema` unchanged: every object in it is closed
 * (`additionalProperties: false`) and requires every property it has. A schema that is not (a plain
 * `z.object` leaves objects open; optional fields are not required) is sent with `strict: false`: the
 * model is still asked for that shape, and the runtime checks the answer either way.
 */
export function isStrictSchema(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.every(isStrictSchema);
  if (typeof schema !== 'object' || schema === null) return true;
  const node = schema as Record<string, unknown>;
  if (node.type === 'object' || node.properties !== undefined) {
    const properties = Object.keys((node.properties as object | undefined) ?? {});
    const required = Array.isArray(node.required) ? node.required : [];
    if (node.additionalProperties !== false) return false;
    if (!properties.every((name) => required.includes(name))) return false;
  }
  return Object.entries(node).every(([key, value]) =>
    // `enum` and `const` hold values, not schemas; everything else that is an object may hold schemas.
    key === 'enum' || key === 'const' || key === 'default' || key === 'examples'
      ? true
      : isStrictSchema(value),
  );
}
