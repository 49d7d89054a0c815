/**
 * A model archive already on this machine (`dictum models pull <id> --from /path/to/archive`, for air-gapped
 * installs): hashed with progress and checked against the catalog digest like a download.
 */
import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { errors } from '../errors/catalogue.ts'
import { type ProgressListener, ProgressMeter } from './progress-meter.ts'

export interface LocalArchive {
  path: string
  sha256: string
  sizeBytes: number
}

export interface LocalArchiveRequest {
  /** A path (relative to the working directory) or a `file:` URL. */
  source: string
  expectedSha256: string | null
  label: string
  onProgress?: ProgressListener | undefined
  /** Called when the archive is read and its checksum is compared (with its size). */
  onVerify?: ((bytes: number) => void) | undefined
  signal?: AbortSignal | undefined
}

/** True when `--from` names a download location rather than a file on this machine. */
export function isRemoteSource(source: string): boolean {
  return /^https?:\/\//i.test(source)
}

export async function checkLocalArchive(request: LocalArchiveRequest): Promise<LocalArchive> {
  const file = request.source.startsWith('file:')
    ? fileURLToPath(request.source)
    : path.resolve(request.source)
  const info = await stat(file).catch(() => null)
  if (!info?.isFile()) throw errors.MODEL_DOWNLOAD_FAILED(`${request.label}: no such archive file: ${file}`)
  const meter = new ProgressMeter({ onProgress: request.onProgress })
  meter.setTotal(info.size)
  meter.reset(0)
  const hash = createHash('sha256')
  const input = createReadStream(file, request.signal ? { signal: request.signal } : {})
  try {
    for await (const chunk of input) {
      hash.update(chunk as Buffer)
      meter.add((chunk as Buffer).length)
    }
  } finally {
    meter.close()
  }
  meter.finish()
  request.onVerify?.(info.size)
  const sha256 = hash.digest('hex')
  if (request.expectedSha256 !== null && sha256 !== request.expectedSha256) {
    throw errors.MODEL_CHECKSUM_MISMATCH(
      `${request.label}: ${file} has SHA-256 ${sha256}, expected ${request.expectedSha256}.`,
    )
  }
  return { path: file, sha256, sizeBytes: info.size }
}
