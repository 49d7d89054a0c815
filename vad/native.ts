/** The Silero VAD of sherpa-onnx-node, typed, loaded on first use (never at import). */
import { createRequire } from 'node:module'

export interface NativeSpeechSegment {
  /** Index of the first sample, counted from the first sample fed. */
  start: number
  samples: Float32Array
}

export interface NativeVad {
  acceptWaveform(samples: Float32Array): void
  isEmpty(): boolean
  isDetected(): boolean
  pop(): void
  front(enableExternalBuffer?: boolean): NativeSpeechSegment
  flush(): void
  reset(): void
}

export interface NativeVadConfig {
  sileroVad: {
    model: string
    threshold: number
    minSilenceDuration: number
    minSpeechDuration: number
    maxSpeechDuration: number
    windowSize: number
  }
  sampleRate: number
  numThreads: number
  provider: 'cpu'
  debug: 0
}

type VadConstructor = new (config: NativeVadConfig, bufferSizeInSeconds: number) => NativeVad

export const SHERPA_PACKAGE = 'sherpa-onnx-node'

export function createNativeVad(config: NativeVadConfig, bufferSizeInSeconds: number): NativeVad {
  const { Vad } = createRequire(import.meta.url)(SHERPA_PACKAGE) as { Vad: VadConstructor }
  return new Vad(config, bufferSizeInSeconds)
}

/** Absolute path of the package entry, for the child process that test-loads unknown model files. */
export function sherpaPackagePath(): string {
  return createRequire(import.meta.url).resolve(SHERPA_PACKAGE)
}
