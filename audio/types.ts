import type { PluginLogger } from '../kernel/contracts/engine.ts'
import { ENGINE_SAMPLE_RATE } from '../kernel/contracts/engine.ts'

/** The sample rate every decoded signal has. */
export const TARGET_SAMPLE_RATE = ENGINE_SAMPLE_RATE

/** Where audio comes from: a file on disk (spec mode A) or bytes from a request (modes B and C). */
export type AudioSource =
  | { kind: 'file'; path: string }
  | { kind: 'bytes'; data: Buffer; filename?: string; contentType?: string }

export interface AudioDecoderOptions {
  /** Config `audio.ffmpegPath`: a path to the binary, or a command name looked up on PATH. */
  ffmpegPath?: string
  /** Config `audio.maxSeconds`: longer audio is refused with `AUDIO_TOO_LONG`. */
  maxSeconds: number
  /** Where temporary copies of seek-only containers are written; defaults to `os.tmpdir()`. */
  tempDir?: string
  logger?: PluginLogger
  /** Environment used for `FFMPEG_PATH` and `PATH`; defaults to `process.env`. */
  env?: NodeJS.ProcessEnv
}

/** Which ffmpeg binary is used and which lookup step found it. */
export type FfmpegSource = 'config' | 'env' | 'ffmpeg-static' | 'path'

export interface FfmpegLocation {
  path: string
  source: FfmpegSource
}

/** The layout of interleaved PCM samples in a file (a WAV `data` chunk or headerless raw). */
export interface PcmLayout {
  sampleRate: number
  channels: number
  sampleFormat: 'u8' | 's16' | 's24' | 's32' | 'f32' | 'f64'
  /** Bytes per frame (all channels). */
  blockAlign: number
  /** Byte offset of the first frame. */
  dataOffset: number
  /** Whole frames present in the file. */
  frames: number
}
