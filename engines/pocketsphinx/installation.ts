/** Checks that pocketsphinx and its model are on disk, without loading native code. */
import { stat } from 'node:fs/promises'
import path from 'node:path'
import { findLibraries, LIBRARY_NAMES, type LibraryPaths } from './libraries.ts'
import { type ModelPaths, type PocketsphinxOptions, resolveModelPaths } from './options.ts'

export const INSTALL_FIX = 'apt-get install pocketsphinx pocketsphinx-en-us'

export type Installation =
  | { ok: true; libraries: LibraryPaths; paths: ModelPaths }
  | { ok: false; reason: string }

/** Files of an acoustic model folder that pocketsphinx cannot start without. */
const ACOUSTIC_MODEL_FILES = ['mdef', 'means', 'variances', 'transition_matrices']

export async function checkInstallation(
  options: PocketsphinxOptions,
  modelsDir: string,
): Promise<Installation> {
  const libraries = findLibraries(options.libraryDir)
  if (!libraries) {
    const where = options.libraryDir ? ` in ${options.libraryDir}` : ''
    return {
      ok: false,
      reason: `${LIBRARY_NAMES.pocketsphinx} or ${LIBRARY_NAMES.sphinxbase} not found${where}`,
    }
  }
  const paths = resolveModelPaths(options, modelsDir)
  const shown = (file: string) => shownPath(file, modelsDir)
  for (const file of ACOUSTIC_MODEL_FILES) {
    if (!(await isFile(path.join(paths.hmm, file)))) {
      return { ok: false, reason: `acoustic model folder ${shown(paths.hmm)} has no ${file}` }
    }
  }
  if (!(await isFile(paths.lm))) return { ok: false, reason: `language model ${shown(paths.lm)} not found` }
  if (!(await isFile(paths.dict))) return { ok: false, reason: `dictionary ${shown(paths.dict)} not found` }
  return { ok: true, libraries, paths }
}

/**
 * A model path as reasons show it: inside the models directory as `models/…` (the data dir's absolute path
 * must not reach HTTP clients), elsewhere (the system's /usr/share/pocketsphinx) as it is.
 */
function shownPath(file: string, modelsDir: string): string {
  const inside = path.relative(modelsDir, file)
  if (inside.startsWith('..') || path.isAbsolute(inside)) return file
  return path.posix.join('models', ...inside.split(path.sep))
}

async function isFile(file: string): Promise<boolean> {
  const info = await stat(file).catch(() => null)
  return info?.isFile() === true && info.size > 0
}
