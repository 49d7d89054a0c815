/**
 * The `models` config section: downloading catalog models.
 * Composed with the other sections by server/config-schema.ts.
 */
import { type Static, Type } from '@sinclair/typebox'
import { configSection } from '../config/schema.ts'

export const ModelsSchema = Type.Object(
  {
    autoPull: Type.Boolean({ default: false, description: 'Download the selected model on first use.' }),
    mirror: Type.Union([Type.String({ minLength: 1 }), Type.Null()], {
      default: null,
      description: 'Base URL of a mirror that serves the catalog archives by file name.',
    }),
  },
  { additionalProperties: false, default: {} },
)

export const modelsConfig = configSection('models', 'models', ModelsSchema)

declare module '../config/schema.ts' {
  interface DictumConfig {
    models: Static<typeof ModelsSchema>
  }
}
