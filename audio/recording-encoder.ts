/**
 * Keeps a dictation's audio compactly: 16 kHz mono samples, written as they are decoded, come out of ffmpeg
 * as FLAC. FLAC is lossless, so a replay of the recording (learning/replay.ts) gives the engine exactly the
 * samples the dictation gave it; 16-bit FLAC of speech is about a third of the 16-bit PCM.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { TARGET_SAMPLE_RATE } from './types.ts'

/** The format of every kept recording (its Content-Type when played back). */
export const RECORDING_FORMAT = { extension: 'flac', contentType: 'audio/flac' } as const

/**
 * ffmpeg writing FLAC to a pipe cannot go back to its header, so STREAMINFO says 0 samples ("unknown"): a
 * browser then shows no length and cannot seek. The count is known here; written into the header (its
 * 36-bit total at bytes 21–25, after `fLaC`, the block header and the sizes and format bits).
 */
export function withTotalSamples(flac: Buffer, samples: number): Buffer {
  const isStreamInfo =
    flac.length >= 42 && flac.toString('latin1', 0, 4) === 'fLaC' && (flac[4]! & 0x7f) === 0
  if (!isStreamInfo || samples <= 0 || samples >= 2 ** 36) return flac
  const high = Math.floor(samples / 2 ** 32)
  flac[21] = (flac[21]! & 0xf0) | high
  flac.writeUInt32BE(samples % 2 ** 32, 22)
  return flac
}

/** One recording being encoded: `write` the samples, then `finish` for the file, or `abort`. */
export class RecordingEncoder {
  readonly #child: ChildProcess
  readonly #output: Buffer[] = []
  readonly #done: Promise<Buffer>
  #failed: Error | null = null
  /** Samples written, for the FLAC header. */
  #samples = 0

  /** Starts ffmpeg (`binary`: the decoder's, config `audio.ffmpegPath` or found on PATH). */
  constructor(binary: string) {
    const args = ['-nostdin', '-hide_banner', '-loglevel', 'error']
    const input = ['-f', 'f32le', '-ar', String(TARGET_SAMPLE_RATE), '-ac', '1', '-i', 'pipe:0']
    const output = ['-c:a', 'flac', '-sample_fmt', 's16', '-f', 'flac', 'pipe:1']
    this.#child = spawn(binary, [...args, ...input, ...output], { stdio: ['pipe', 'pipe', 'ignore'] })
    this.#child.stdin?.on('error', (error) => {
      this.#failed ??= error
    })
    this.#child.stdout?.on('data', (chunk: Buffer) => this.#output.push(chunk))
    this.#done = new Promise((resolve, reject) => {
      this.#child.once('error', reject)
      this.#child.once('close', (code) => {
        if (code === 0 && !this.#failed) resolve(Buffer.concat(this.#output))
        else reject(this.#failed ?? new Error(`ffmpeg could not encode the recording (exit ${code})`))
      })
    })
    this.#done.catch(() => {})
  }

  /** Hands samples over (copied: the caller's buffer may move on to an engine host). */
  write(samples: Float32Array): void {
    if (this.#failed || samples.length === 0) return
    const bytes = Buffer.alloc(samples.byteLength)
    Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength).copy(bytes)
    this.#samples += samples.length
    this.#child.stdin?.write(bytes)
  }

  /** The FLAC file of everything written, its length in its header. Rejects when ffmpeg failed. */
  async finish(): Promise<Buffer> {
    this.#child.stdin?.end()
    return withTotalSamples(await this.#done, this.#samples)
  }

  /** Stops ffmpeg and drops what was encoded. Safe after finish. */
  abort(): void {
    this.#failed ??= new Error('the recording was aborted')
    this.#child.stdin?.destroy()
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill('SIGKILL')
  }
}
