/** The pocketsphinx engine's default options and context for tests, and whether the engine is installed. */
import { Value } from '@sinclair/typebox/value'
import pocketsphinx from '../../../engines/pocketsphinx/index.ts'
import { type PocketsphinxOptions, PocketsphinxOptionsSchema } from '../../../engines/pocketsphinx/options.ts'

export const options = Value.Default(PocketsphinxOptionsSchema, {}) as PocketsphinxOptions
export const quiet = { debug() {}, info() {}, warn() {}, error() {} }
export const context = { options, dataDir: '/nonexistent', modelsDir: '/nonexistent', logger: quiet }
const probe = await pocketsphinx.probe?.(context)
/** false when pocketsphinx runs here, else why not (a tap `skip`). */
export const skip = probe?.available
  ? false
  : `pocketsphinx is not installed (${probe?.available === false && probe.reason})`
