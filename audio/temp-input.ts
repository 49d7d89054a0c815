/** A private temporary copy of request bytes, for containers ffmpeg can only read with seeking. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { errors } from '../errors/catalogue.ts'
import type { Release, ResourceSet } from './resource-set.ts'

export interface TempInput {
  path: string
  /** Removes the file and its directory; safe to call twice. */
  release: Release
}

export async function writeTempInput(
  tempDir: string,
  extension: string,
  data: Buffer,
  resources: ResourceSet,
): Promise<TempInput> {
  let folder: string
  try {
    // mkdtemp creates the directory with mode 0700: other local users cannot read the audio.
    folder = await mkdtemp(path.join(tempDir, 'dictum-audio-'))
  } catch (error) {
    throw errors.INTERNAL(undefined, { cause: error })
  }
  const release = resources.add(() => rm(folder, { recursive: true, force: true }))
  const file = path.join(folder, `input.${extension}`)
  try {
    await writeFile(file, data, { mode: 0o600, flag: 'wx' })
  } catch (error) {
    await release()
    throw errors.INTERNAL(undefined, { cause: error })
  }
  return { path: file, release }
}
