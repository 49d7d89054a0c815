/**
 * The slice of sherpa-onnx-node (CJS, untyped) this engine uses, typed, and loaded only on demand: importing
 * the engine definition must never load native code.
 */
import { createRequire } from 'node:module'
import os from 'node:os'

export interface OfflineRecognizerResult {
  text: string
  lang?: string
  tokens?: string[]
  timestamps?: number[]
  durations?: number[]
  /** Log-probability of each emitted token (transducer families). */
  ys_log_probs?: number[]
}

export interface OfflineStream {
  readonly handle: unknown
  acceptWaveform(wave: { samples: Float32Array; sampleRate: number }): void
}

export interface OfflineRecognizer {
  readonly handle: unknown
  createStream(hotwords?: string): OfflineStream
  /** Throws a SyntaxError on a result holding NaN: the engine uses decodeToJson. */
  decodeAsync(stream: OfflineStream): Promise<OfflineRecognizerResult>
  setConfig(config: unknown): void
}

/** A streaming model's stream: audio goes in as it comes; `inputFinished` flushes the last frames. */
export interface OnlineStream {
  readonly handle: unknown
  acceptWaveform(wave: { samples: Float32Array; sampleRate: number }): void
  inputFinished(): void
}

/** sherpa-onnx's recognizer for streaming models; every call is synchronous. */
export interface OnlineRecognizer {
  readonly handle: unknown
  createStream(): OnlineStream
  isReady(stream: OnlineStream): boolean
  decode(stream: OnlineStream): void
}

/** The native addon's decode, which answers the result as JSON text (see result.ts for why not decodeAsync). */
interface SherpaOnnxAddon {
  decodeOfflineStreamAsync(recognizer: unknown, stream: unknown): Promise<string>
  getOnlineStreamResultAsJson(recognizer: unknown, stream: unknown): string
}

export interface SherpaOnnxModule {
  OfflineRecognizer: { createAsync(config: unknown): Promise<OfflineRecognizer> }
  OnlineRecognizer: new (config: unknown) => OnlineRecognizer
  /** Reads a WAV file as the sherpa-onnx examples do (benchmarks compare against that). */
  readWave(file: string): { samples: Float32Array; sampleRate: number }
}

const PACKAGE = 'sherpa-onnx-node'

export function loadSherpaOnnx(): SherpaOnnxModule {
  return createRequire(import.meta.url)(PACKAGE) as SherpaOnnxModule
}

/**
 * Decodes `stream` and returns the result's JSON text. The package's own `decodeAsync` parses it with
 * JSON.parse, which throws on the bare `nan` a corrupt model produces; result.ts parses it instead.
 */
export function decodeToJson(recognizer: OfflineRecognizer, stream: OfflineStream): Promise<string> {
  const addon = createRequire(import.meta.url)(`${PACKAGE}/addon.js`) as SherpaOnnxAddon
  return addon.decodeOfflineStreamAsync(recognizer.handle, stream.handle)
}

/** A streaming recognizer's result so far, as JSON text (parsed by result.ts, like the offline one). */
export function onlineResultJson(recognizer: OnlineRecognizer, stream: OnlineStream): string {
  const addon = createRequire(import.meta.url)(`${PACKAGE}/addon.js`) as SherpaOnnxAddon
  return addon.getOnlineStreamResultAsJson(recognizer.handle, stream.handle)
}

/**
 * Whether the package and its native addon for this platform are installed, checked by resolving file names
 * only (no native code runs). Returns a reason when they are not.
 */
export function sherpaOnnxMissing(): string | null {
  const require = createRequire(import.meta.url)
  let main: string
  try {
    main = require.resolve(PACKAGE)
  } catch {
    return `the npm package ${PACKAGE} is not installed`
  }
  const platform = os.platform() === 'win32' ? 'win' : os.platform()
  const addon = `sherpa-onnx-${platform}-${os.arch()}`
  try {
    createRequire(main).resolve(`${addon}/package.json`)
    return null
  } catch {
    return `the native addon ${addon} (a dependency of ${PACKAGE}) is not installed for this platform`
  }
}
