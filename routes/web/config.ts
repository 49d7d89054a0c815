/**
 * The `web` config section: serving the web app.
 * Composed with the other sections by server/config-schema.ts.
 */
import { type Static, Type } from '@sinclair/typebox'
import { configSection } from '../../config/schema.ts'

export const WebSchema = Type.Object(
  {
    enabled: Type.Boolean({
      default: true,
      description: 'Serve the web app at / on the API listener (same guard and token as the API).',
    }),
  },
  { additionalProperties: false, default: {} },
)

export const webConfig = configSection('routes/web', 'web', WebSchema)

declare module '../../config/schema.ts' {
  interface DictumConfig {
    web: Static<typeof WebSchema>
  }
}
