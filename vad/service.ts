/**
 * The app's voice activity detector (Silero through sherpa-onnx), opened on first use and reopened when
 * `vad.*` changes. The model is config `vad.model`, else the catalog's installed `silero-vad`, else the copy
 * dictum ships (`assets/silero-vad/`). No model (or `vad.enabled` false): null, and the transcription
 * pipeline falls back to fixed-length pieces.
 */
import { existsSync } from 'node:fs'
import path from 'node:path'
import type { ConfigStore } from '../kernel/config-store.ts'
import type { PluginLogger } from '../kernel/contracts/engine.ts'
import { PACKAGE_ROOT } from '../lib/package-root.ts'
import { VadSegmenter } from './index.ts'

/** The Silero VAD model dictum ships (MIT, `assets/silero-vad/`), when the package has it. */
export function bundledVadModel(): string | undefined {
  const file = path.join(PACKAGE_ROOT, 'assets/silero-vad/silero_vad.onnx')
  return existsSync(file) ? file : undefined
}

export class VadService {
  readonly #configStore: ConfigStore
  readonly #logger: PluginLogger
  readonly #modelsDir: string
  #open: { key: string; segmenter: Promise<VadSegmenter | null> } | null = null

  constructor({
    configStore,
    logger,
    modelsDir,
  }: { configStore: ConfigStore; logger: PluginLogger; modelsDir: string }) {
    this.#configStore = configStore
    this.#logger = logger
    this.#modelsDir = modelsDir
  }

  /** The segmenter, or null when VAD is disabled or no usable model is found (logged once per config). */
  segmenter(): Promise<VadSegmenter | null> {
    const config = this.#configStore.current.vad
    const key = JSON.stringify(config)
    if (this.#open?.key === key) return this.#open.segmenter
    this.#open?.segmenter.then((s) => s?.close()).catch(() => {})
    const fallback = bundledVadModel()
    const segmenter = config.enabled
      ? VadSegmenter.open(config, {
          modelsDir: this.#modelsDir,
          ...(fallback ? { fallbackModel: fallback } : {}),
        }).catch((err: Error) => {
          this.#logger.warn(
            { error: err.message },
            'no usable VAD model: long audio is cut at fixed lengths and silence is not detected (run: dictum models pull silero-vad)',
          )
          return null
        })
      : Promise.resolve(null)
    this.#open = { key, segmenter }
    return segmenter
  }

  async close(): Promise<void> {
    const open = this.#open
    this.#open = null
    ;(await open?.segmenter)?.close()
  }
}
