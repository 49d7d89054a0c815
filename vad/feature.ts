/** Voice activity detection for the app: long audio cut at pauses, silence skipped (Silero VAD). */
import { asClass } from 'awilix/browser'
import type { Feature } from '../kernel/container.ts'
import { VadService } from './service.ts'

declare module '../kernel/container.ts' {
  interface Cradle {
    vad: VadService
  }
}

export const vadFeature: Feature = {
  name: 'vad',
  services: { vad: asClass(VadService).singleton() },
  close: (cradle) => cradle.vad.close(),
}
