/** Builds a real app on a temp data dir for a test, and closes it on teardown. */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Test } from 'tap'
import { resolveConfig } from '../../config/load.ts'
import type { DictumConfig } from '../../config/schema.ts'
import { type BuildOptions, buildApp, type DictumApp } from '../../kernel/app.ts'

export type ConfigOverrides = Record<string, unknown>

/** A config like the user's, with a fresh temp dataDir unless one is given. */
export function testConfig(t: Test, overrides: ConfigOverrides = {}): Readonly<DictumConfig> {
  const dataDir =
    (overrides.dataDir as string | undefined) ?? mkdtempSync(path.join(tmpdir(), 'dictum-test-'))
  return resolveConfig({ ...overrides, dataDir, log: { level: 'silent', ...(overrides.log as object) } })
}

export async function build(
  t: Test,
  overrides: ConfigOverrides = {},
  options: BuildOptions = {},
): Promise<DictumApp> {
  const app = await buildApp(testConfig(t, overrides), { logger: false, ...options })
  t.teardown(() => app.close())
  await app.ready()
  return app
}

/** Injects a JSON request and returns status, headers and the parsed body. */
export async function injectJson(
  app: DictumApp,
  method: string,
  url: string,
  payload?: unknown,
  headers = {},
) {
  const response = await app.inject({
    method: method as 'GET',
    url,
    headers: { ...(payload === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(payload === undefined
      ? {}
      : { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) }),
  })
  let body: unknown
  try {
    body = response.json()
  } catch {
    body = response.body
  }
  return { status: response.statusCode, headers: response.headers, body: body as any }
}
