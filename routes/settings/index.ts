/** GET and PATCH /v1/settings (extension): the engine, the AI provider, history on or off. */
import { asClass } from 'awilix'
import { routePlugin } from '../../http/route-plugin.ts'
import type { Feature } from '../../kernel/container.ts'
import { SettingsChangedSchema, SettingsSchema } from '../../settings/schemas.ts'
import { SettingsService } from '../../settings/service.ts'

export const settingsRoutes = routePlugin('settings', async (app) => {
  const { settings } = app.dictum
  app.get('/settings', { schema: { response: { 200: SettingsSchema } } }, async () => settings.read())
  app.patch(
    '/settings',
    { schema: { response: { 200: SettingsChangedSchema } }, config: { jsonError: 'INVALID_SETTINGS_JSON' } },
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
  services: { settings: asClass(SettingsService).singleton() },
  routes: { prefix: '/v1', plugin: settingsRoutes },
}
