/**
 * dictum's app: the kernel with every feature, in the order they register (openapi first, so it sees the
 * routes after it). Adding a feature is adding its folder and its line here (and, when it has config keys,
 * its section's line in config-schema.ts). The server, the CLI and the tests build it; nothing listens here
 * (server/server.ts owns the process).
 */
import { audioFeature } from '../audio/feature.ts'
import type { DictumConfig } from '../config/schema.ts'
import { type AppOptions, createApp, type DictumApp } from '../http/app.ts'
import { type Feature, featureTables } from '../kernel/container.ts'
import { liveFeature } from '../live/feature.ts'
import { modelsFeature } from '../models/feature.ts'
import { dictateFeature } from '../routes/dictate/index.ts'
import { dictionaryFeature } from '../routes/dictionary/index.ts'
import { enginesFeature } from '../routes/engines/index.ts'
import { healthFeature } from '../routes/health/index.ts'
import { historyFeature } from '../routes/history/index.ts'
import { jobsFeature } from '../routes/jobs/index.ts'
import { learningFeature } from '../routes/learning/index.ts'
import { modelPullFeature } from '../routes/models/index.ts'
import { openaiFeature } from '../routes/openai/index.ts'
import { openapiFeature } from '../routes/openapi/index.ts'
import { postprocessFeature } from '../routes/postprocess/index.ts'
import { realtimeFeature } from '../routes/realtime/index.ts'
import { settingsFeature } from '../routes/settings/index.ts'
import { transcribeFeature } from '../routes/transcribe/index.ts'
import { webFeature } from '../routes/web/index.ts'
import { vadFeature } from '../vad/feature.ts'
import { ConfigSchema } from './config-schema.ts'

export type { DictumApp }

export const FEATURES: readonly Feature[] = [
  audioFeature,
  vadFeature,
  modelsFeature,
  openapiFeature,
  healthFeature,
  dictionaryFeature,
  historyFeature,
  postprocessFeature,
  enginesFeature,
  modelPullFeature,
  settingsFeature,
  transcribeFeature,
  dictateFeature,
  learningFeature,
  liveFeature,
  openaiFeature,
  realtimeFeature,
  jobsFeature,
  webFeature,
]

export type BuildOptions = Omit<AppOptions, 'features' | 'configSchema'>

export function buildApp(config: Readonly<DictumConfig>, options: BuildOptions = {}): Promise<DictumApp> {
  return createApp(config, { ...options, features: FEATURES, configSchema: ConfigSchema })
}

/** dictum's tables, for code that opens the database without an app (tests, benches). */
export const TABLES = featureTables(FEATURES)
