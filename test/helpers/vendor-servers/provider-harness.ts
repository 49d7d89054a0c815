/** Creating provider instances from config-style options and catching their failures, for provider tests. */
import net from 'node:net'
import type { Test } from 'tap'
import type {
  ProviderDefinition,
  ProviderInstance,
  ProviderProcessRequest,
} from '../../../kernel/contracts/provider.ts'

import { createInstance, resolveOptions } from '../../../sdk/testing/provider-suite.ts'

export { createInstance, failure, resolveOptions } from '../../../sdk/testing/provider-suite.ts'

/** Resolves config-style options (throwing when they are invalid) and creates an instance. */
export async function makeProvider(
  t: Test,
  definition: ProviderDefinition,
  options: Record<string, unknown>,
): Promise<ProviderInstance> {
  const { value, problems } = resolveOptions(definition, options)
  if (problems.length > 0) throw new Error(`invalid options: ${problems.join('; ')}`)
  return createInstance(t, definition, value)
}

export function run(
  instance: ProviderInstance,
  request: Partial<ProviderProcessRequest> = {},
  signal?: AbortSignal,
) {
  return instance.process({ text: 'hello world', ...request }, signal ?? new AbortController().signal)
}

/** A base URL where nothing listens (a port that was just free). */
export async function deadUrl(): Promise<string> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return `http://127.0.0.1:${port}`
}
