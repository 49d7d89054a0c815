/** Options every command accepts, and what they mean for the config. */
import type { ConfigFlags } from '../config/load.ts'

export const GLOBAL_OPTIONS = {
  config: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  'data-dir': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  json: { type: 'boolean' },
} as const

/** Config flags from parsed global options. */
export function flagsOf(values: Record<string, unknown>): ConfigFlags {
  const flags: ConfigFlags = {}
  if (typeof values.config === 'string') flags.config = values.config
  if (typeof values.host === 'string') flags.host = values.host
  if (typeof values.port === 'string') flags.port = values.port
  if (typeof values['data-dir'] === 'string') flags.dataDir = values['data-dir']
  return flags
}

/** CLI commands log nothing by default: they print what matters. */
export const quietLogger = { debug() {}, info() {}, warn() {}, error() {} }

/** The global options as they appear in each command's help. */
export const GLOBAL_HELP = `Global options:
  --config FILE         Config file (else DICTUM_CONFIG, else $XDG_CONFIG_HOME/dictum/config.json)
  --data-dir DIR        Data folder (else DICTUM_DATA_DIR, else dataDir)
  -h, --help            This help`
