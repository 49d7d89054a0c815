/**
 * Reads the outer structure of an `.onnx` file without native code.
 *
 * onnxruntime aborts the whole process on some broken files, and sherpa-onnx exits when required metadata is
 * missing. Walking the top-level protobuf fields of the ModelProto (seeking over the graph, never loading it)
 * catches empty, truncated and non-ONNX files, and yields `metadata_props`, in a few small reads even for a
 * model of hundreds of megabytes.
 */
import { type FileHandle, open } from 'node:fs/promises'

export interface OnnxFileInfo {
  irVersion: number
  /** Bytes of the serialized graph. */
  graphBytes: number
  /** `metadata_props` of the model (key → value). */
  metadata: Record<string, string>
}

const FIELD_IR_VERSION = 1
const FIELD_GRAPH = 7
const FIELD_METADATA = 14
/** Metadata entries are short; anything larger is not read. */
const MAX_METADATA_ENTRY = 1 << 20

export class OnnxFileError extends Error {
  override name = 'OnnxFileError'
}

interface Varint {
  value: number
  next: number
}

function readVarint(buf: Uint8Array, at: number): Varint | null {
  let value = 0
  let scale = 1
  for (let i = at; i < buf.length && i < at + 10; i++) {
    const byte = buf[i]!
    value += (byte & 0x7f) * scale
    if ((byte & 0x80) === 0) return { value, next: i + 1 }
    scale *= 128
  }
  return null
}

function parseEntry(buf: Uint8Array): [string, string] {
  let key = ''
  let value = ''
  let at = 0
  const decoder = new TextDecoder()
  while (at < buf.length) {
    const tag = readVarint(buf, at)
    if (!tag || (tag.value & 7) !== 2) throw new OnnxFileError('malformed metadata entry')
    const len = readVarint(buf, tag.next)
    if (!len || len.next + len.value > buf.length) throw new OnnxFileError('malformed metadata entry')
    const text = decoder.decode(buf.subarray(len.next, len.next + len.value))
    if (tag.value >>> 3 === 1) key = text
    else if (tag.value >>> 3 === 2) value = text
    at = len.next + len.value
  }
  return [key, value]
}

/** Reads the top-level field at `pos`; returns where the next one starts. */
async function readField(handle: FileHandle, size: number, pos: number, info: OnnxFileInfo): Promise<number> {
  const head = Buffer.alloc(20)
  const { bytesRead } = await handle.read(head, 0, head.length, pos)
  const view = head.subarray(0, bytesRead)
  const tag = readVarint(view, 0)
  if (!tag || tag.value === 0) throw new OnnxFileError('not an ONNX model (bad field tag)')
  const field = Math.floor(tag.value / 8)
  const wire = tag.value & 7
  if (wire === 1 || wire === 5) return pos + tag.next + (wire === 1 ? 8 : 4)
  if (wire === 0) {
    const v = readVarint(view, tag.next)
    if (!v) throw new OnnxFileError('not an ONNX model (bad varint)')
    if (field === FIELD_IR_VERSION) info.irVersion = v.value
    return pos + v.next
  }
  if (wire !== 2) throw new OnnxFileError('not an ONNX model (unexpected wire type)')
  const len = readVarint(view, tag.next)
  if (!len) throw new OnnxFileError('not an ONNX model (bad length)')
  const start = pos + len.next
  const end = start + len.value
  if (end > size) throw new OnnxFileError('the file is truncated')
  if (field === FIELD_GRAPH) info.graphBytes += len.value
  if (field === FIELD_METADATA && len.value <= MAX_METADATA_ENTRY) {
    const entry = Buffer.alloc(len.value)
    await handle.read(entry, 0, len.value, start)
    const [key, value] = parseEntry(entry)
    info.metadata[key] = value
  }
  return end
}

/**
 * Checks that `file` is a complete ONNX model (every top-level field fits the file exactly, a graph and an IR
 * version are present) and returns its metadata. Throws {@link OnnxFileError} with a short reason otherwise.
 */
export async function readOnnxFile(file: string): Promise<OnnxFileInfo> {
  const handle = await open(file, 'r')
  try {
    const { size } = await handle.stat()
    if (size === 0) throw new OnnxFileError('the file is empty')
    const info: OnnxFileInfo = { irVersion: 0, graphBytes: 0, metadata: {} }
    let pos = 0
    while (pos < size) pos = await readField(handle, size, pos, info)
    if (pos !== size) throw new OnnxFileError('the file is truncated')
    if (info.irVersion === 0 || info.graphBytes === 0) throw new OnnxFileError('not an ONNX model (no graph)')
    return info
  } finally {
    await handle.close()
  }
}
