/** TypeBox pieces shared by the options schemas of the language-model providers. */
import { Type } from '@sinclair/typebox'
import { TRANSCRIPT_PLACEHOLDER } from '../../sdk/plugin.ts'

export function baseUrlOption(defaultUrl: string, description: string) {
  return Type.String({ default: defaultUrl, pattern: '^https?://', description })
}

export function modelOption(defaultModel: string) {
  return Type.String({ default: defaultModel, minLength: 1, description: 'Model name sent to the API.' })
}

export function temperatureOption(defaultValue: number | null) {
  return Type.Union([Type.Number({ minimum: 0, maximum: 2 }), Type.Null()], {
    default: defaultValue,
    description: 'Sampling temperature; null leaves it to the server (some reasoning models reject it).',
  })
}

export const timeoutMsOption = (defaultMs: number) =>
  Type.Integer({
    default: defaultMs,
    minimum: 100,
    maximum: 600_000,
    description: 'Per-request timeout (ms).',
  })

export const promptOption = Type.Optional(
  Type.String({
    minLength: 1,
    description: `Instructions for the model; ${TRANSCRIPT_PLACEHOLDER} in them is replaced by the text.`,
  }),
)

export const headersOption = Type.Record(Type.String({ minLength: 1 }), Type.String(), {
  default: {},
  description: 'Extra HTTP headers sent with every request.',
})

export const apiKeyOptions = (envName: string) => ({
  apiKey: Type.Optional(Type.String({ minLength: 1, description: `API key; defaults to $${envName}.` })),
  apiKeyEnv: Type.String({
    default: envName,
    pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
    description: 'Environment variable read when apiKey is not set.',
  }),
})

/** The key from the options, else from the named environment variable; undefined when neither is set. */
export function resolveApiKey(options: { apiKey?: string; apiKeyEnv: string }): string | undefined {
  const key = (options.apiKey ?? process.env[options.apiKeyEnv] ?? '').trim()
  return key === '' ? undefined : key
}

/** True when the URL's host is this machine (localhost, 127.0.0.0/8, ::1). */
export function isLoopbackUrl(url: string): boolean {
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase()
    return (
      host === 'localhost' ||
      host.endsWith('.localhost') ||
      host === '::1' ||
      /^127(?:\.\d{1,3}){3}$/.test(host)
    )
  } catch {
    return false
  }
}

/** Joins a base URL and a path without doubling or dropping the slash. */
export function joinUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`
}

/**
 * What must never appear in an error message: the API key, and the values of extra headers (a proxy's
 * token, say); short values such as a version date are not secrets and would only blank out useful text.
 */
export function secretsOf(apiKey: string | undefined, headers: Record<string, string>): string[] {
  return [apiKey ?? '', ...Object.values(headers)].filter((value) => value.length >= 8)
}
