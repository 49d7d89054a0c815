/** The model catalog and the installed models of the app's data dir: pulls, checks, removal. */
import { asFunction } from 'awilix'
import type { Feature } from '../kernel/container.ts'
import { ModelManager } from './manager.ts'

declare module '../kernel/container.ts' {
  interface Cradle {
    models: ModelManager
  }
}

export const modelsFeature: Feature = {
  name: 'models',
  services: {
    models: asFunction(
      ({ modelsDir, logger, configStore }) =>
        new ModelManager({ modelsDir, logger, mirror: configStore.current.models.mirror }),
    ).singleton(),
  },
  close: (cradle) => cradle.models.close(),
}
