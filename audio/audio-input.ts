/**
 * Random access to the bytes of an audio source, with the file-system failures of spec mode A translated
 * into catalogue errors once, here.
 */
import { constants } from 'node:fs'
import { type FileHandle, open } from 'node:fs/promises'
import path from 'node:path'
import { errors, isDictumError } from '../errors/catalogue.ts'
import type { AudioSource } from './types.ts'

export interface AudioInput {
  readonly size: number
  /** Absolute path when the audio is a file on disk (ffmpeg then reads it directly). */
  readonly path: string | undefined
  /** The bytes when the audio came with the request. */
  readonly data: Buffer | undefined
  /** File name or path whose extension hints at the format. */
  readonly nameHint: string | undefined
  readonly contentType: string | undefined
  /** Reads up to `length` bytes at `offset`; shorter only at the end of the input. */
  read(offset: number, length: number): Promise<Buffer>
  close(): Promise<void>
}

class BytesInput implements AudioInput {
  readonly path = undefined
  readonly size: number

  constructor(
    readonly data: Buffer,
    readonly nameHint: string | undefined,
    readonly contentType: string | undefined,
  ) {
    this.size = data.length
  }

  async read(offset: number, length: number): Promise<Buffer> {
    return this.data.subarray(offset, offset + length)
  }

  async close(): Promise<void> {}
}

class FileInput implements AudioInput {
  readonly data = undefined
  readonly contentType = undefined
  #closed = false

  constructor(
    readonly path: string,
    readonly size: number,
    private readonly handle: FileHandle,
  ) {}

  get nameHint(): string {
    return this.path
  }

  async read(offset: number, length: number): Promise<Buffer> {
    const buffer = Buffer.allocUnsafe(Math.max(0, Math.min(length, this.size - offset)))
    if (buffer.length === 0) return buffer
    const { bytesRead } = await this.handle.read(buffer, 0, buffer.length, offset)
    return buffer.subarray(0, bytesRead)
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    await this.handle.close()
  }
}

function fileError(filePath: string, error: unknown) {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'ENOENT' || code === 'ENOTDIR') return errors.AUDIO_FILE_NOT_FOUND(filePath, { cause: error })
  return errors.AUDIO_FILE_UNREADABLE(filePath, { cause: error })
}

async function openFile(filePath: string): Promise<AudioInput> {
  if (!path.isAbsolute(filePath)) throw errors.AUDIO_PATH_NOT_ABSOLUTE(filePath)
  let handle: FileHandle
  let size: number
  try {
    // Non-blocking open: a FIFO would otherwise hold a libuv thread until a writer appears.
    handle = await open(filePath, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (error) {
    throw fileError(filePath, error)
  }
  try {
    const info = await handle.stat()
    // Directories, FIFOs and devices are not audio files (a device may never end).
    if (!info.isFile()) throw errors.AUDIO_FILE_UNREADABLE(filePath)
    size = info.size
  } catch (error) {
    await handle.close()
    throw isDictumError(error) ? error : fileError(filePath, error)
  }
  return new FileInput(filePath, size, handle)
}

/** Opens `source` for reading; throws the catalogue error a user should see when that is impossible. */
export async function openAudioInput(source: AudioSource): Promise<AudioInput> {
  if (source.kind === 'file') return openFile(source.path)
  return new BytesInput(source.data, source.filename, source.contentType)
}
