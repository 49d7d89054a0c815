/** `dictum dictate`'s options and defaults, shared by the command (dictate.ts) and the recording (dictate-session.ts). */
import { parseArgs } from 'node:util'
import { GLOBAL_OPTIONS } from './options.ts'
import { SERVER_OPTIONS } from './server-client.ts'

export const DEFAULT_SILENCE = 1.5
export const DEFAULT_MAX_SECONDS = 300
export const DEFAULT_LIVE_SILENCE = 0.5

const OPTIONS = {
  ...GLOBAL_OPTIONS,
  silence: { type: 'string' },
  'max-seconds': { type: 'string' },
  backend: { type: 'string' },
  device: { type: 'string' },
  input: { type: 'string', short: 'i' },
  copy: { type: 'boolean', short: 'c' },
  type: { type: 'boolean', short: 't' },
  'app-name': { type: 'string' },
  'window-title': { type: 'string' },
  verbose: { type: 'boolean', short: 'v' },
  live: { type: 'boolean', short: 'l' },
  toggle: { type: 'boolean' },
  begin: { type: 'boolean' },
  end: { type: 'boolean' },
  notify: { type: 'boolean' },
  ...SERVER_OPTIONS,
} as const

export function parseOptions(args: string[]) {
  return parseArgs({ args, options: OPTIONS, allowPositionals: false })
}

export type Values = ReturnType<typeof parseOptions>['values']
