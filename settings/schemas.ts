/** TypeBox schemas of GET and PATCH /v1/settings (extension). */
import { type Static, Type } from '@sinclair/typebox'

const Values = {
  speech: Type.Object({ engine: Type.String({ description: 'The active speech engine (speech.engine).' }) }),
  ai: Type.Object({ provider: Type.String({ description: 'The AI provider, or none (ai.provider).' }) }),
  history: Type.Object({ enabled: Type.Boolean({ description: 'Keep a history (history.enabled).' }) }),
}

export const SettingsSchema = Type.Object({
  ...Values,
  available: Type.Object({
    engines: Type.Array(Type.String(), { description: 'Values speech.engine may take.' }),
    providers: Type.Array(Type.String(), { description: 'Values ai.provider may take (none first).' }),
  }),
  configFile: Type.Union(
    [
      Type.Object({
        path: Type.String({ description: 'Where it is, the home folder written ~.' }),
        exists: Type.Boolean({ description: 'False until a change creates it.' }),
      }),
      Type.Null(),
    ],
    { description: 'The config file changes are written to; null when this dictum has none.' },
  ),
})
export type Settings = Static<typeof SettingsSchema>

export const SettingsChangedSchema = Type.Composite([
  SettingsSchema,
  Type.Object({ created: Type.Boolean({ description: 'This change created the config file.' }) }),
])

/** The PATCH body, for the OpenAPI document (the service checks it, with its own messages). */
export const SettingsPatchSchema = Type.Object(
  {
    speech: Type.Optional(
      Type.Object({ engine: Type.Optional(Type.String()) }, { additionalProperties: false }),
    ),
    ai: Type.Optional(
      Type.Object({ provider: Type.Optional(Type.String()) }, { additionalProperties: false }),
    ),
    history: Type.Optional(
      Type.Object({ enabled: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
)
