/**
 * The shell of the configuration schema: the keys of the file itself (`$schema`, `dataDir`), what a config
 * section is, and how sections compose into the schema the loader validates with. Every other top-level key
 * is a section declared by the folder that owns it (`history/config.ts`: its TypeBox schema, defaults and
 * descriptions), as its error codes are; server/config-schema.ts lists the sections and composes them.
 * Key names are fixed by docs/api-decisions.md; scripts rely on them.
 */
import { type Static, type TObject, type TSchema, Type } from '@sinclair/typebox'

/** One top-level key of the config file, declared by the folder that owns it. */
export interface ConfigSection<K extends string = string, S extends TSchema = TSchema> {
  /** The folder that declares it (`history`, `routes/web`): named when two claim one key. */
  owner: string
  key: K
  schema: S
}

export function configSection<const K extends string, S extends TSchema>(
  owner: string,
  key: K,
  schema: S,
): ConfigSection<K, S> {
  return { owner, key, schema }
}

const SchemaKeySchema = Type.Optional(
  Type.String({
    description: "The JSON Schema of this file, for editors (dictum's config.schema.json).",
  }),
)

const DataDirSchema = Type.String({ minLength: 1, description: 'Holds the database and downloaded models.' })

/**
 * The config, typed. Each section's module adds its key by declaration merging (as features declare their
 * services on `Cradle`):
 * `declare module '…/config/schema.ts' { interface DictumConfig { history: Static<typeof HistorySchema> } }`.
 * server/config-schema.ts checks at compile time that this type and the composed schema agree.
 */
export interface DictumConfig {
  $schema?: Static<typeof SchemaKeySchema>
  dataDir: Static<typeof DataDirSchema>
}

/** The file's own keys: `$schema` for editors, and `dataDir`, which the loader fills in (config/load.ts). */
export const schemaKeyConfig = configSection('config', '$schema', SchemaKeySchema)
export const dataDirConfig = configSection('config', 'dataDir', DataDirSchema)

/** The properties of composed sections, by key. */
export type SectionProperties<S extends readonly ConfigSection[]> = {
  [E in S[number] as E['key']]: E['schema']
}

/**
 * One object schema of the sections, in their order (the order the JSON Schema and `dictum config` show).
 * A key claimed by two sections fails, naming both owners.
 */
export function composeConfigSchema<const S extends readonly ConfigSection[]>(
  sections: S,
): TObject<SectionProperties<S>> {
  const properties: Record<string, TSchema> = {}
  const owners = new Map<string, string>()
  for (const section of sections) {
    const taken = owners.get(section.key)
    if (taken !== undefined) {
      throw new Error(`config key ${section.key} is declared by ${taken} and by ${section.owner}`)
    }
    owners.set(section.key, section.owner)
    properties[section.key] = section.schema
  }
  return Type.Object(properties as SectionProperties<S>, { additionalProperties: false })
}

/** Where each part of the config came from, for `dictum config` and reload. */
export interface ConfigSources {
  /** The config file in force, or null when none was found (defaults apply). */
  file: string | null
}
