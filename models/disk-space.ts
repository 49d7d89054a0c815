/**
 * A pull checks the free space first: failing before a multi-GB download is kinder than failing after it.
 */
import { statfs } from 'node:fs/promises'
import { errors } from '../errors/catalogue.ts'
import type { CatalogEntry } from '../kernel/contracts/catalog.ts'
import { formatBytes } from './format-bytes.ts'

/**
 * Bytes a pull needs: what is left to download, plus the unpacked model (about the archive size for a single
 * file; unpacked archives are counted at twice the archive, as bzip2 shrinks ONNX weights little and some
 * archives carry both fp32 and int8 files).
 */
export function spaceNeeded(entry: CatalogEntry, alreadyDownloaded: number, downloading: boolean): number {
  const download = downloading ? Math.max(0, entry.sizeBytes - alreadyDownloaded) : 0
  const unpacked = entry.archive === 'onnx' ? entry.sizeBytes : entry.sizeBytes * 2
  return download + unpacked
}

export async function checkFreeSpace(folder: string, entry: CatalogEntry, needed: number): Promise<void> {
  const info = await statfs(folder).catch(() => null)
  if (info === null) return
  const free = info.bavail * info.bsize
  if (free < needed) {
    throw errors.MODEL_DOWNLOAD_FAILED(
      // The folder is not named: over the API this message must not reveal the data directory (issue 16).
      `${entry.id}: not enough disk space in the models folder: about ${formatBytes(needed)} needed, ${formatBytes(free)} free`,
    )
  }
}
