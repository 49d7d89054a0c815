/**
 * The `wyoming` config section: the Wyoming protocol server (config/wyoming-access.ts says whether it
 * may run).
 * Composed with the other sections by server/config-schema.ts.
 */
import { type Static, Type } from '@sinclair/typebox'
import { configSection } from '../config/schema.ts'

export const WyomingSchema = Type.Object(
  {
    enabled: Type.Boolean({
      default: false,
      description: 'Serve the Wyoming protocol (Home Assistant voice pipelines) for speech to text.',
    }),
    host: Type.String({
      default: '127.0.0.1',
      minLength: 1,
      description: 'Address the Wyoming server binds.',
    }),
    port: Type.Integer({
      minimum: 0,
      maximum: 65535,
      default: 10300,
      description: 'TCP port of the Wyoming server (0: any free).',
    }),
    allowWithoutToken: Type.Boolean({
      default: false,
      description:
        'Serve Wyoming even when `api.token` is set. Wyoming has no authentication: whoever reaches the port transcribes without the token.',
    }),
    maxConnections: Type.Integer({
      minimum: 1,
      default: 32,
      description: 'Wyoming connections open at once; more are refused with an error event and closed.',
    }),
    maxConnectionsPerClient: Type.Integer({
      minimum: 1,
      default: 8,
      description: 'Wyoming connections open at once from one client address; more are refused.',
    }),
    idleTimeoutMs: Type.Integer({
      minimum: 1000,
      default: 30_000,
      description:
        'A Wyoming connection that receives no audio for this long is closed (ping and describe do not count).',
    }),
  },
  { additionalProperties: false, default: {} },
)

export const wyomingConfig = configSection('wyoming', 'wyoming', WyomingSchema)

declare module '../config/schema.ts' {
  interface DictumConfig {
    wyoming: Static<typeof WyomingSchema>
  }
}
