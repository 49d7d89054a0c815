/**
 * RIFF/WAVE (and RF64/BW64) header parsing. Finds `fmt ` and `data` wherever they are, skips every other
 * chunk, honours odd-size padding, and reads a `data` size of 0 or 0xFFFFFFFF written by streaming
 * encoders as "up to the end of the file".
 */
import { errors } from '../errors/catalogue.ts'
import type { AudioInput } from './audio-input.ts'
import { sampleBytes } from './pcm-convert.ts'
import type { PcmLayout } from './types.ts'

export type WavHeader =
  | { kind: 'pcm'; layout: PcmLayout; truncated: boolean }
  /** A valid RIFF/WAVE file whose codec (ADPCM, A-law, MP3…) is left to ffmpeg. */
  | { kind: 'codec'; formatTag: number }

interface FmtChunk {
  formatTag: number
  channels: number
  sampleRate: number
  blockAlign: number
  bitsPerSample: number
}

const PCM = 0x0001
const IEEE_FLOAT = 0x0003
const EXTENSIBLE = 0xfffe
/** The tail shared by the KSDATAFORMAT_SUBTYPE_* GUIDs whose first two bytes are a format tag. */
const SUBTYPE_TAIL = Buffer.from('000000001000800000aa00389b71', 'hex')
const UNKNOWN_SIZE = 0xffffffff
const MAX_CHUNKS = 10_000
/**
 * Sample rates dictum reads. Outside them a header is lying or the audio is not speech: a 14 KB file that
 * claimed 1 Hz resampled into 112 million samples in one call, freezing the API.
 */
const MIN_SAMPLE_RATE = 1000
const MAX_SAMPLE_RATE = 384_000

function invalid(reason: string): Error {
  return errors.AUDIO_DECODE_FAILED(`invalid WAV file: ${reason}.`)
}

function looksLikeChunkId(bytes: Buffer): boolean {
  if (bytes.length < 8) return false
  for (let i = 0; i < 4; i++) {
    const c = bytes[i]!
    if (c < 0x20 || c > 0x7e) return false
  }
  return true
}

function parseFmt(body: Buffer): FmtChunk {
  if (body.length < 16) throw invalid('the fmt chunk is too short')
  let formatTag = body.readUInt16LE(0)
  if (formatTag === EXTENSIBLE) {
    if (body.length < 40) throw invalid('the extensible fmt chunk is too short')
    const subtype = body.subarray(24, 40)
    // An unknown sub-format GUID maps to a tag nobody uses, so the file goes to ffmpeg.
    formatTag = subtype.subarray(2).equals(SUBTYPE_TAIL) ? subtype.readUInt16LE(0) : EXTENSIBLE
  }
  return {
    formatTag,
    channels: body.readUInt16LE(2),
    sampleRate: body.readUInt32LE(4),
    blockAlign: body.readUInt16LE(12),
    bitsPerSample: body.readUInt16LE(14),
  }
}

function sampleFormatOf(fmt: FmtChunk): PcmLayout['sampleFormat'] {
  const bytes = Math.ceil(fmt.bitsPerSample / 8)
  if (fmt.formatTag === IEEE_FLOAT) {
    if (bytes === 4) return 'f32'
    if (bytes === 8) return 'f64'
  } else if (bytes >= 1 && bytes <= 4) {
    return (['u8', 's16', 's24', 's32'] as const)[bytes - 1]!
  }
  const kind = fmt.formatTag === IEEE_FLOAT ? 'float' : 'integer'
  throw invalid(`${fmt.bitsPerSample}-bit ${kind} samples are not supported`)
}

function checkFmt(fmt: FmtChunk): PcmLayout['sampleFormat'] {
  if (fmt.channels === 0) throw invalid('zero channels')
  if (fmt.sampleRate < MIN_SAMPLE_RATE || fmt.sampleRate > MAX_SAMPLE_RATE) {
    throw invalid(
      `unsupported sample rate ${fmt.sampleRate} Hz (dictum reads ${MIN_SAMPLE_RATE} to ${MAX_SAMPLE_RATE} Hz)`,
    )
  }
  const sampleFormat = sampleFormatOf(fmt)
  if (fmt.blockAlign !== fmt.channels * sampleBytes(sampleFormat)) throw invalid('inconsistent block size')
  return sampleFormat
}

interface DataChunk {
  offset: number
  /** Declared size, or undefined for "to the end of the file". */
  size: number | undefined
}

interface Scan {
  fmt?: FmtChunk
  data?: DataChunk
}

/** The 64-bit data size an RF64/BW64 file keeps in its `ds64` chunk (the first chunk). */
async function readDs64(input: AudioInput): Promise<number | undefined> {
  const header = await input.read(12, 8)
  if (header.length < 8 || header.toString('latin1', 0, 4) !== 'ds64') throw invalid('RF64 without ds64')
  const body = await input.read(20, 16)
  if (body.length < 16) throw invalid('the ds64 chunk is too short')
  return Number(body.readBigUInt64LE(8))
}

/** Decides what an unusual `data` size means: a streaming placeholder, a real empty chunk, or a size. */
async function dataSize(input: AudioInput, offset: number, declared: number, ds64: number | undefined) {
  if (declared === UNKNOWN_SIZE) return ds64 || undefined
  if (declared !== 0 || offset >= input.size) return declared
  // Size 0 with bytes after it: a real empty chunk only when a well-formed chunk follows.
  return looksLikeChunkId(await input.read(offset, 8)) ? 0 : undefined
}

/** Where the next chunk starts; tolerates writers that forget the pad byte after an odd-size chunk. */
async function nextChunk(input: AudioInput, offset: number, size: number): Promise<number> {
  const padded = offset + 8 + size + (size & 1)
  if ((size & 1) === 0 || padded >= input.size) return padded
  if (looksLikeChunkId(await input.read(padded, 8))) return padded
  return looksLikeChunkId(await input.read(padded - 1, 8)) ? padded - 1 : padded
}

async function scanChunks(input: AudioInput, ds64: number | undefined): Promise<Scan> {
  const scan: Scan = {}
  let offset = 12
  for (let count = 0; count < MAX_CHUNKS && offset + 8 <= input.size; count++) {
    const header = await input.read(offset, 8)
    const id = header.toString('latin1', 0, 4)
    const size = header.readUInt32LE(4)
    if (id === 'fmt ') scan.fmt = parseFmt(await input.read(offset + 8, Math.min(size, 64)))
    if (id === 'data' && !scan.data) {
      const declared = await dataSize(input, offset + 8, size, ds64)
      scan.data = { offset: offset + 8, size: declared }
      if (declared === undefined) break
    }
    if (scan.fmt && scan.data) break
    offset = await nextChunk(input, offset, size)
  }
  return scan
}

/** Reads the header of a RIFF/WAVE input; throws AUDIO_DECODE_FAILED when it is not a usable WAV. */
export async function parseWavHeader(input: AudioInput): Promise<WavHeader> {
  const riff = await input.read(0, 12)
  if (riff.length < 12) throw invalid('the header is truncated')
  const ds64 = riff.toString('latin1', 0, 4) === 'RIFF' ? undefined : await readDs64(input)
  const { fmt, data } = await scanChunks(input, ds64)
  if (!fmt) throw invalid('no fmt chunk')
  if (!data) throw invalid('no data chunk')
  if (fmt.formatTag !== PCM && fmt.formatTag !== IEEE_FLOAT)
    return { kind: 'codec', formatTag: fmt.formatTag }
  const sampleFormat = checkFmt(fmt)
  const available = Math.max(0, input.size - data.offset)
  const bytes = data.size === undefined ? available : Math.min(data.size, available)
  const layout: PcmLayout = {
    sampleRate: fmt.sampleRate,
    channels: fmt.channels,
    sampleFormat,
    blockAlign: fmt.blockAlign,
    dataOffset: data.offset,
    frames: Math.floor(bytes / fmt.blockAlign),
  }
  return { kind: 'pcm', layout, truncated: data.size !== undefined && data.size > available }
}
