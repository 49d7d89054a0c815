/**
 * Whether the config lets the Wyoming server run. Wyoming has no authentication, so with `api.token` set
 * it would be a way around the token: it stays off unless `wyoming.allowWithoutToken` says to serve it
 * anyway. The Wyoming server (wyoming/server.ts) obeys this and logs the reason; GET /v1/engines shows it.
 */
import type { DictumConfig } from './schema.ts'

export interface WyomingAccess {
  /** `disabled`: `wyoming.enabled` is false; `refused`: enabled but not served (see `reason`). */
  state: 'disabled' | 'enabled' | 'refused'
  reason: string | null
}

export function wyomingAccess(config: Readonly<Pick<DictumConfig, 'api' | 'wyoming'>>): WyomingAccess {
  if (!config.wyoming.enabled) return { state: 'disabled', reason: null }
  if (config.api.token !== null && !config.wyoming.allowWithoutToken) {
    return {
      state: 'refused',
      reason:
        'api.token is set and Wyoming has no authentication (anyone reaching its port would transcribe without the token): set wyoming.allowWithoutToken to true to serve it anyway.',
    }
  }
  return { state: 'enabled', reason: null }
}
