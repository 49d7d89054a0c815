/**
 * The app's audio decoder, rebuilt when `audio.*` changes (the decoder caches the ffmpeg it found).
 * Closing it kills running ffmpeg processes and removes temp files.
 */

import type { ConfigStore } from '../kernel/config-store.ts'
import type { PluginLogger } from '../kernel/contracts/engine.ts'
import { AudioDecoder } from './index.ts'

export class AudioService {
  #decoder: AudioDecoder
  #key: string
  /** Closers of replaced decoders that may still have decodes running. */
  readonly #retired = new Set<() => Promise<void>>()
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
      this.#key = key
      this.#retire(this.#decoder)
      this.#decoder = this.#create()
    })
  }

  /**
   * Decodes already running on a replaced decoder finish on it; it is closed after `speech.timeoutMs`, or
   * when the service closes, whichever comes first, so its ffmpeg children always have an owner.
   */
  #retire(decoder: AudioDecoder): void {
    const close = () => {
      clearTimeout(timer)
      this.#retired.delete(close)
      return decoder.close()
    }
    const timer = setTimeout(close, this.#configStore.current.speech.timeoutMs).unref()
    this.#retired.add(close)
  }

  get decoder(): AudioDecoder {
    return this.#decoder
  }

  #create(): AudioDecoder {
    const { ffmpegPath, maxSeconds } = this.#configStore.current.audio
    return new AudioDecoder({ ...(ffmpegPath ? { ffmpegPath } : {}), maxSeconds, logger: this.#logger })
  }

  async close(): Promise<void> {
    await Promise.all([this.#decoder.close(), ...[...this.#retired].map((close) => close())])
  }
}
