/** Audio decoding for the app: the decoder service (WAV in process, other formats through ffmpeg). */
import { asClass } from 'awilix/browser'
import type { Feature } from '../kernel/container.ts'
import { AudioService } from './service.ts'

declare module '../kernel/container.ts' {
  interface Cradle {
    audio: AudioService
  }
}

export const audioFeature: Feature = {
  name: 'audio',
  services: { audio: asClass(AudioService).singleton() },
  // ffmpeg children and temp files, the decoders replaced by config edits included.
  close: (cradle) => cradle.audio.close(),
}
