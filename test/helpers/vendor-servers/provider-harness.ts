/** Creating provider instances from config-style options and catching their failures, for provider tests. */
import net from 'node:net'
import os from 'node:os'
import { Value } from '@sinclair/typebox/value'
import type { Test } from 'tap'
import type {
  ProviderDefinition,
  ProviderInstance,
  ProviderProcessRequest,
} from '../../../kernel/contracts/provider.ts'

const quiet = { debug() {}, info() {}, warn() {}, error() {} }

/** Applies the schema's defaults to config-style options, as the kernel does, and lists what is invalid. */
export function resolveOptions(
  definition: ProviderDefinition,
  raw: Record<string, unknown>,
): { value: unknown; problems: string[] } {
  const value = Value.Default(definition.optionsSchema, structuredClone(raw))
  const problems = [...Value.Errors(definition.optionsSchema, value)].map((e) => `${e.path}: ${e.message}`)
  return { value, problems }
}

/** Creates an instance from resolved options; it is closed when the test ends. */
export async function createInstance(
  t: Test,
  definition: ProviderDefinition,
  options: unknown,
): Promise<ProviderInstance> {
  const instance = await definition.create({ options: options as never, dataDir: os.tmpdir(), logger: quiet })
  t.teardown(() => instance.close?.())
  return instance
}

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

/** The Error a promise rejects with; fails the test when it resolves. */
export async function failure(t: Test, work: Promise<unknown>): Promise<Error> {
  try {
    const value = await work
    t.fail(`expected a rejection, got ${JSON.stringify(value)}`)
  } catch (err) {
    t.ok(err instanceof Error, 'rejects with an Error')
    return err as Error
  }
  return new Error('resolved')
}

/** A base URL where nothing listens (a port that was just free). */
export async function deadUrl(): Promise<string> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return `http://127.0.0.1:${port}`
}
