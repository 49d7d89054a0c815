/**
 * One strict Awilix container per app: every service and resource of an app hangs off it, so two apps in one
 * process never share anything. `closeContainer` releases resources in reverse order of dependency.
 */
import path from 'node:path'
import { type AwilixContainer, asClass, asFunction, asValue, createContainer, InjectionMode } from 'awilix'
import type { DictumConfig } from '../config/schema.ts'
import { DictationService } from '../plugins/dictate/service.ts'
import { DictionaryService } from '../plugins/dictionary/service.ts'
import { HistoryService } from '../plugins/history/service.ts'
import { PostprocessService } from '../plugins/postprocess/service.ts'
import { TranscriptionService } from '../plugins/transcribe/service.ts'
import { AudioService } from './audio-service.ts'
import { ConfigStore } from './config-store.ts'
import type { PluginLogger } from './contracts/engine.ts'
import type { DiscoveryResult } from './discovery.ts'
import { createEngineRunner } from './engine-runner/index.ts'
import { UploadSlots } from './http/upload-slots.ts'
import { ModelManager } from './models/manager.ts'
import { ProviderRegistry } from './provider-registry.ts'
import { EngineRegistry, type RunnerFactory } from './registry.ts'
import { type Db, openDatabase } from './storage/database.ts'
import { VadService } from './vad-service.ts'

export interface Cradle {
  configStore: ConfigStore
  logger: PluginLogger
  discovery: DiscoveryResult
  dataDir: string
  modelsDir: string
  db: Db
  runnerFactory: RunnerFactory
  models: ModelManager
  engines: EngineRegistry
  providers: ProviderRegistry
  dictionary: DictionaryService
  history: HistoryService
  historyMaxEntries: () => number
  postprocess: PostprocessService
  audio: AudioService
  vad: VadService
  transcription: TranscriptionService
  dictation: DictationService
  uploads: UploadSlots
}

export type DictumContainer = AwilixContainer<Cradle>

export interface ContainerOptions {
  config: Readonly<DictumConfig>
  configFile: string | null
  logger: PluginLogger
  discovery: DiscoveryResult
  /** Replace the engine runner factory (tests). */
  runnerFactory?: RunnerFactory
  /** Replace the model manager (tests: a catalog served from 127.0.0.1). */
  models?: ModelManager
}

export function buildContainer(options: ContainerOptions): DictumContainer {
  const container = createContainer<Cradle>({ injectionMode: InjectionMode.PROXY, strict: true })
  const configStore = new ConfigStore(options.config, options.configFile)
  // dataDir is fixed for the app's lifetime: the database is open in it.
  const dataDir = options.config.dataDir
  container.register({
    configStore: asValue(configStore),
    logger: asValue(options.logger),
    discovery: asValue(options.discovery),
    dataDir: asValue(dataDir),
    modelsDir: asValue(path.join(dataDir, 'models')),
    db: asFunction(({ dataDir }: Cradle) => openDatabase({ dataDir })).singleton(),
    runnerFactory: asValue(options.runnerFactory ?? createEngineRunner),
    models: options.models
      ? asValue(options.models)
      : asFunction(
          ({ modelsDir, logger }: Cradle) =>
            new ModelManager({ modelsDir, logger, mirror: configStore.current.models.mirror }),
        ).singleton(),
    engines: asClass(EngineRegistry).singleton(),
    providers: asClass(ProviderRegistry).singleton(),
    dictionary: asClass(DictionaryService).singleton(),
    historyMaxEntries: asValue(() => configStore.current.history.maxEntries),
    history: asClass(HistoryService).singleton(),
    postprocess: asClass(PostprocessService).singleton(),
    audio: asClass(AudioService).singleton(),
    vad: asClass(VadService).singleton(),
    transcription: asClass(TranscriptionService).singleton(),
    dictation: asClass(DictationService).singleton(),
    uploads: asClass(UploadSlots).singleton(),
  })
  return container
}

/**
 * Closes what the container created, users before what they use: engines, providers, the decoder (ffmpeg
 * children, temp files) and the VAD, then the database.
 */
export async function closeContainer(container: DictumContainer): Promise<void> {
  const resolved = (name: keyof Cradle) => container.cache.has(name)
  const closing: Promise<unknown>[] = []
  if (resolved('engines')) closing.push(container.cradle.engines.close())
  if (resolved('providers')) closing.push(container.cradle.providers.close())
  if (resolved('audio')) closing.push(container.cradle.audio.close())
  if (resolved('vad')) closing.push(container.cradle.vad.close())
  if (resolved('models')) closing.push(container.cradle.models.close())
  await Promise.allSettled(closing)
  if (resolved('db')) container.cradle.db.close()
  await container.dispose()
}
