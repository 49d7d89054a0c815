/** The model catalog and the installed models of the app's data dir: pulls, checks, removal. */
import { asFunction } from 'awilix'
import type { Feature } from '../kernel/container.ts'
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
    // Every engine's catalog models (a plugin's too) and the VAD's, as discovery found the engines.
    models: asFunction(
      ({ modelsDir, logger, configStore, discovery }) =>
        new ModelManager({
          modelsDir,
          logger,
          mirror: configStore.current.models.mirror,
          catalog: modelCatalog(discovery.engines.values()),
        }),
    ).singleton(),
  },
  close: (cradle) => cradle.models.close(),
}
