/** Live dictation (issue 13): the `live` service the realtime WebSocket, Wyoming, SSE and the CLI use. */

import { asClass } from 'awilix/browser'
import type { Feature } from '../kernel/container.ts'
import { liveErrors } from './errors.ts'
import { LiveSessions } from './service.ts'
import type { LiveService } from './types.ts'

declare module '../kernel/container.ts' {
  interface Cradle {
    live: LiveService
  }
}

export const liveFeature: Feature = {
  name: 'live',
  errors: liveErrors.table,
  dependencies: ['audio', 'vad', 'dictionary', 'history'],
  services: { live: asClass(LiveSessions).singleton() },
  close: (cradle) => (cradle.live as LiveSessions).close(),
}
