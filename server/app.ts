/**
 * dictum's app: the kernel with every feature, in the order they register (openapi first, so it sees the
 * routes after it). Adding a feature is adding its folder and its line here. The server, the CLI and the
 * tests build it; nothing listens here (server/server.ts owns the process).
 */
import { audioFeature } from '../audio/feature.ts'
import type { DictumConfig } from '../config/schema.ts'
import { jobsFeature } from '../jobs/feature.ts'
import { type AppOptions, createApp, type DictumApp } from '../kernel/app.ts'
import { type Feature, featureTables } from '../kernel/container.ts'
import { liveFeature } from '../live/feature.ts'
import { modelsFeature } from '../models/feature.ts'
import { modelPullFeature } from '../models/routes.ts'
import { dictateFeature } from '../plugins/dictate/index.ts'
import { dictionaryFeature } from '../plugins/dictionary/index.ts'
import { enginesFeature } from '../plugins/engines/index.ts'
import { healthFeature } from '../plugins/health/index.ts'
import { historyFeature } from '../plugins/history/index.ts'
import { openaiFeature } from '../plugins/openai/index.ts'
import { openapiFeature } from '../plugins/openapi/index.ts'
import { postprocessFeature } from '../plugins/postprocess/index.ts'
import { realtimeFeature } from '../plugins/realtime/index.ts'
import { settingsFeature } from '../plugins/settings/index.ts'
import { transcribeFeature } from '../plugins/transcribe/index.ts'
import { vadFeature } from '../vad/feature.ts'
import { webFeature } from '../web/feature.ts'

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
  liveFeature,
  openaiFeature,
  realtimeFeature,
  jobsFeature,
  webFeature,
]

export type BuildOptions = Omit<AppOptions, 'features'>

export function buildApp(config: Readonly<DictumConfig>, options: BuildOptions = {}): Promise<DictumApp> {
  return createApp(config, { ...options, features: FEATURES })
}

/** dictum's tables, for code that opens the database without an app (tests, benches). */
export const TABLES = featureTables(FEATURES)
