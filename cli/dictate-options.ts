/** `dictum dictate`'s options and defaults, shared by the command (dictate.ts) and the recording (dictate-session.ts). */
import { parseArgs } from 'node:util'
import { GLOBAL_OPTIONS } from './options.ts'
import { SERVER_OPTIONS } from './server-client.ts'

export const DEFAULT_SILENCE = 1.5
export const DEFAULT_MAX_SECONDS = 300
export const DEFAULT_LIVE_SILENCE = 0.5
/**
 * The pause between two typed keys, in milliseconds, unless `--type-delay` says otherwise. xdotool and
 * ydotool wait 12 ms by their own default: 1.3 s for a 100-character sentence, more than the whole
 * transcription of it takes (bench `desktop`). 2 ms keeps every key in order in the X test's xterm; an
 * application that drops keys typed that fast wants `--type-delay 12`.
 */
export const DEFAULT_TYPE_DELAY_MS = 2

const OPTIONS = {
  ...GLOBAL_OPTIONS,
  silence: { type: 'string' },
  'max-seconds': { type: 'string' },
  backend: { type: 'string' },
  device: { type: 'string' },
  input: { type: 'string', short: 'i' },
  copy: { type: 'boolean', short: 'c' },
  type: { type: 'boolean', short: 't' },
  'type-delay': { type: 'string' },
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
