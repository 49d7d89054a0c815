/** The model catalog and the installed models of the app's data dir: pulls, checks, removal. */
import { asFunction } from 'awilix/browser'
import type { Feature } from '../kernel/container.ts'
import type { PluginLogger } from '../kernel/contracts/engine.ts'
import type { DiscoveryResult } from '../kernel/discovery.ts'
import { modelCatalog } from './catalog.ts'
import { ModelManager } from './manager.ts'

declare module '../kernel/container.ts' {
  interface Cradle {
    models: ModelManager
  }
}

export const modelsFeature: Feature = {
  name: 'models',
  services: {
    models: asFunction(({ modelsDir, logger, configStore, discovery }) =>
      createModelManager({ modelsDir, logger, mirror: configStore.current.models.mirror, discovery }),
    ).singleton(),
  },
  close: (cradle) => cradle.models.close(),
}

/**
 * The manager of a models folder, for the app and for `dictum models`: its catalog is every engine's
 * catalog models (a plugin's too) and the VAD's, as discovery found the engines.
 */
export function createModelManager(options: {
  modelsDir: string
  logger: PluginLogger
  mirror: string | null
  discovery: DiscoveryResult
}): ModelManager {
  const { discovery, ...rest } = options
  return new ModelManager({ ...rest, catalog: modelCatalog(discovery.engines.values()) })
}
