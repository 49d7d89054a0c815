/**
 * dictum's config schema: the sections their owners declare (each folder's config.ts), composed in the order
 * the file documents them. The loader validates with it, `dictum config --schema` prints it (the shipped
 * config.schema.json) and the app hands it to the settings. A folder that adds config keys declares its
 * section beside its errors.ts and names it here. Only the sections are imported (TypeBox schemas), never
 * the features: the config loads before, and without, the app.
 */
import type { Static } from '@sinclair/typebox'
import { audioConfig } from '../audio/config.ts'
import { composeConfigSchema, type DictumConfig, dataDirConfig, schemaKeyConfig } from '../config/schema.ts'
import { dictationConfig } from '../dictation/config.ts'
import { historyConfig } from '../history/config.ts'
import { apiConfig, logConfig } from '../http/config.ts'
import { jobsConfig } from '../jobs/config.ts'
import { pluginsConfig, speechConfig } from '../kernel/config.ts'
import { learningConfig } from '../learning/config.ts'
import { realtimeConfig } from '../live/config.ts'
import { modelsConfig } from '../models/config.ts'
import { aiConfig } from '../postprocess/config.ts'
import { webConfig } from '../routes/web/config.ts'
import { vadConfig } from '../vad/config.ts'
import { wyomingConfig } from '../wyoming/config.ts'

export const CONFIG_SECTIONS = [
  schemaKeyConfig,
  apiConfig,
  dataDirConfig,
  speechConfig,
  audioConfig,
  vadConfig,
  modelsConfig,
  aiConfig,
  dictationConfig,
  historyConfig,
  learningConfig,
  realtimeConfig,
  wyomingConfig,
  webConfig,
  jobsConfig,
  pluginsConfig,
  logConfig,
] as const

export const ConfigSchema = composeConfigSchema(CONFIG_SECTIONS)

/**
 * Compiles only when the typed config (each section's declaration on `DictumConfig`) and the composed schema
 * agree: a section declared but not listed above, or listed but not declared, fails `tsc`.
 */
export type ConfigTypeAgrees = Assert<Agree<Static<typeof ConfigSchema>, DictumConfig>>
type Agree<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
type Assert<T extends true> = T
