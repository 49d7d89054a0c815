/** GET and PATCH /v1/settings (extension): the engine, the AI provider, history on or off. */

import { asClass } from 'awilix/browser'
import { jsonBody } from '../../http/route-doc.ts'
import { routePlugin } from '../../http/route-plugin.ts'
import type { Feature } from '../../kernel/container.ts'
import { settingsErrors } from '../../settings/errors.ts'
import { SettingsChangedSchema, SettingsPatchSchema, SettingsSchema } from '../../settings/schemas.ts'
import { SettingsService } from '../../settings/service.ts'

export const settingsRoutes = routePlugin('settings', async (app) => {
  const { settings } = app.dictum
  app.get(
    '/settings',
    {
      schema: { response: { 200: SettingsSchema } },
      config: {
        doc: {
          summary: 'The settings a page may change: engine, AI provider, history on or off.',
          errors: [401, 403],
        },
      },
    },
    async () => settings.read(),
  )
  app.patch(
    '/settings',
    {
      schema: { response: { 200: SettingsChangedSchema } },
      config: {
        jsonError: settingsErrors.INVALID_SETTINGS_JSON,
        doc: {
          summary:
            'Change the engine, the AI provider or history on/off: written to the config file, applied live.',
          body: jsonBody(SettingsPatchSchema),
          errors: [400, 401, 403, 409, 413, 500],
        },
      },
    },
    async (request) => settings.change(request.body),
  )
})

declare module '../../kernel/container.ts' {
  interface Cradle {
    settings: SettingsService
  }
}

export const settingsFeature: Feature = {
  name: 'settings',
  errors: settingsErrors.table,
  services: { settings: asClass(SettingsService).singleton() },
  routes: { prefix: '/v1', plugin: settingsRoutes },
}
