/**
 * The app's audio decoder, rebuilt when `audio.*` changes (the decoder caches the ffmpeg it found).
 * Closing it kills running ffmpeg processes and removes temp files.
 */

import { AudioDecoder } from './audio/index.ts'
import type { ConfigStore } from './config-store.ts'
import type { PluginLogger } from './contracts/engine.ts'

export class AudioService {
  #decoder: AudioDecoder
  #key: string
  readonly #configStore: ConfigStore
  readonly #logger: PluginLogger

  constructor({ configStore, logger }: { configStore: ConfigStore; logger: PluginLogger }) {
    this.#configStore = configStore
    this.#logger = logger
    this.#key = JSON.stringify(configStore.current.audio)
    this.#decoder = this.#create()
    configStore.onChange((next) => {
      const key = JSON.stringify(next.audio)
      if (key === this.#key) return
      const old = this.#decoder
      this.#key = key
      this.#decoder = this.#create()
      // Decodes already running on the old decoder finish; it is closed once they are done.
      setTimeout(() => void old.close(), this.#configStore.current.speech.timeoutMs).unref()
    })
  }

  get decoder(): AudioDecoder {
    return this.#decoder
  }

  #create(): AudioDecoder {
    const { ffmpegPath, maxSeconds } = this.#configStore.current.audio
    return new AudioDecoder({ ...(ffmpegPath ? { ffmpegPath } : {}), maxSeconds, logger: this.#logger })
  }

  async close(): Promise<void> {
    await this.#decoder.close()
  }
}
