/**
 * The engine runner: how the kernel runs one speech engine. With isolation 'process' the engine lives in
 * child processes, so a native crash, abort or hang costs one request, never the API process. See
 * docs/engine-isolation.md.
 */
import { InlineEngineRunner } from './inline-runner.ts'
import { ProcessEngineRunner } from './process-runner.ts'
import type { EngineRunner, EngineRunnerOptions } from './types.ts'

export type {
  EngineRunner,
  EngineRunnerContext,
  EngineRunnerOptions,
  EngineRunnerState,
  EngineRunnerTimeouts,
} from './types.ts'

export function createEngineRunner(options: EngineRunnerOptions): EngineRunner {
  if (options.isolation === 'process') return new ProcessEngineRunner(options)
  if (!options.definition) {
    throw new Error(`engine ${options.engineId}: isolation 'none' needs the definition`)
  }
  return new InlineEngineRunner(options, options.definition)
}
