/**
 * Format detection. Magic bytes decide; the file name and content type are only hints, used for the
 * headerless-raw convention and to name the temporary copy ffmpeg probes.
 */
import { errors } from '../errors/catalogue.ts'

/** How a given input is decoded. */
export type DetectedFormat =
  | { kind: 'wav' }
  | { kind: 'raw' }
  | {
      kind: 'ffmpeg'
      /** File extension for a temporary copy (ffmpeg's prober uses it as a tie-breaker). */
      extension: string
      /** True when the container may need seeking (an index at the end), so bytes go to a temp file. */
      needsFile: boolean
    }

/** Bytes of the input that detection looks at. */
export const HEAD_BYTES = 64

const RAW_EXTENSIONS = new Set(['raw', 'pcm'])

const CONTENT_TYPE_EXTENSIONS: Record<string, string> = {
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/mp4': 'm4a',
  'audio/x-m4a': 'm4a',
  'audio/aac': 'aac',
  'audio/aiff': 'aiff',
  'audio/x-aiff': 'aiff',
  'audio/x-caf': 'caf',
  'audio/ogg': 'ogg',
  'audio/opus': 'opus',
  'audio/flac': 'flac',
  'audio/webm': 'webm',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
}

function ascii(head: Uint8Array, offset: number, length: number): string {
  return Buffer.from(head.subarray(offset, offset + length)).toString('latin1')
}

/** Lower-case extension of a file name or path, or undefined. */
export function extensionOf(name: string | undefined): string | undefined {
  const match = name ? /\.([A-Za-z0-9]{1,8})$/.exec(name) : null
  return match?.[1]?.toLowerCase()
}

function hintedExtension(nameHint: string | undefined, contentType: string | undefined): string {
  const fromName = extensionOf(nameHint)
  if (fromName) return fromName
  const mime = contentType?.split(';')[0]?.trim().toLowerCase()
  return (mime && CONTENT_TYPE_EXTENSIONS[mime]) || 'bin'
}

/** Containers recognised by an unambiguous tag; `needsFile` for those that may keep their index at the end. */
function byTag(head: Uint8Array): DetectedFormat | undefined {
  const tag = ascii(head, 0, 4)
  const form = ascii(head, 8, 4)
  if ((tag === 'RIFF' || tag === 'RF64' || tag === 'BW64') && form === 'WAVE') return { kind: 'wav' }
  if (tag === 'RIFF') return { kind: 'ffmpeg', extension: form === 'AVI ' ? 'avi' : 'bin', needsFile: true }
  if (tag === 'FORM' && (form === 'AIFF' || form === 'AIFC')) {
    return { kind: 'ffmpeg', extension: 'aiff', needsFile: true }
  }
  if (tag === 'caff') return { kind: 'ffmpeg', extension: 'caf', needsFile: true }
  if (['ftyp', 'moov', 'mdat', 'free', 'wide'].includes(ascii(head, 4, 4))) {
    return { kind: 'ffmpeg', extension: 'm4a', needsFile: true }
  }
  if (tag === 'OggS') return { kind: 'ffmpeg', extension: 'ogg', needsFile: false }
  if (tag === 'fLaC') return { kind: 'ffmpeg', extension: 'flac', needsFile: false }
  // MP3 is streamable, but ffmpeg trims the encoder's end padding (gapless info) only from a seekable
  // input: a temp file keeps the sample count equal to decoding the same file by path.
  if (tag.startsWith('ID3')) return { kind: 'ffmpeg', extension: 'mp3', needsFile: true }
  if (tag === '\x1a\x45\xdf\xa3') return { kind: 'ffmpeg', extension: 'webm', needsFile: false }
  if (ascii(head, 0, 5) === '#!AMR') return { kind: 'ffmpeg', extension: 'amr', needsFile: false }
  return undefined
}

/** Tab, line feed, carriage return and printable ASCII: what a text file is made of. */
function isText(head: Uint8Array): boolean {
  return head.every((b) => b === 0x09 || b === 0x0a || b === 0x0d || (b >= 0x20 && b < 0x7f))
}

/**
 * Decides how to decode an input from its first bytes (at least `HEAD_BYTES` when the input is longer).
 * Text is never audio: a playlist (`#EXTM3U`), an ffmpeg concat list or an SDP file would make ffmpeg open
 * other files and quote them in its errors, so such inputs are refused before ffmpeg sees them.
 */
export function detectFormat(
  head: Uint8Array,
  nameHint: string | undefined,
  contentType: string | undefined,
): DetectedFormat {
  const tagged = byTag(head)
  if (tagged) return tagged
  if (head.length >= 8 && isText(head) && !RAW_EXTENSIONS.has(extensionOf(nameHint) ?? '')) {
    throw errors.AUDIO_DECODE_FAILED('the file is text (a playlist or a list of files?), not audio.')
  }
  // Checked before the weak MPEG sync below: raw PCM often starts with 0xFFFF (a sample of -1).
  if (RAW_EXTENSIONS.has(extensionOf(nameHint) ?? '')) return { kind: 'raw' }
  if (head[0] === 0xff && ((head[1] ?? 0) & 0xe0) === 0xe0) {
    const adts = ((head[1] ?? 0) & 0x06) === 0
    return adts
      ? { kind: 'ffmpeg', extension: 'aac', needsFile: false }
      : { kind: 'ffmpeg', extension: 'mp3', needsFile: true }
  }
  return { kind: 'ffmpeg', extension: hintedExtension(nameHint, contentType), needsFile: true }
}
