/**
 * The JSON Schema of the config file, for editors (`"$schema": "…/config.schema.json"` in the file gives
 * completion, descriptions and defaults). Generated from the TypeBox schema the loader validates with (the
 * sections composed by server/config-schema.ts), so it cannot drift: `dictum config --schema` prints it, and
 * the package ships it as `config.schema.json` (a test checks that the committed file is this output). A key
 * is required in the file only when it has no default (the loader fills `dataDir` in).
 */
import type { TObject } from '@sinclair/typebox'

type JsonSchema = { [key: string]: unknown }

export function configJsonSchema(configSchema: TObject): JsonSchema {
  const schema = JSON.parse(JSON.stringify(configSchema)) as JsonSchema
  optionalWhereDefaulted(schema, ['dataDir'])
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://www.npmjs.com/package/dictum-local/config.schema.json',
    title: 'dictum config file',
    description: 'Config of dictum, the local dictation service (~/.config/dictum/config.json). See README.',
    ...schema,
  }
}

function optionalWhereDefaulted(schema: JsonSchema, filledIn: readonly string[] = []): void {
  const properties = schema.properties as Record<string, JsonSchema> | undefined
  if (properties) {
    if (Array.isArray(schema.required)) {
      const required = (schema.required as string[]).filter(
        (key) => properties[key]?.default === undefined && !filledIn.includes(key),
      )
      if (required.length > 0) schema.required = required
      else delete schema.required
    }
    for (const child of Object.values(properties)) optionalWhereDefaulted(child)
  }
  for (const key of ['items', 'additionalProperties'] as const) {
    const child = schema[key]
    if (child && typeof child === 'object') optionalWhereDefaulted(child as JsonSchema)
  }
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const list = schema[key]
    if (Array.isArray(list)) for (const child of list) optionalWhereDefaulted(child as JsonSchema)
  }
}
