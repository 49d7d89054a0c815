/**
 * The one place that knows what a secret looks like and keeps it out of what dictum shows: the config printed
 * by `dictum config`, and every error message that may quote an option, an environment variable, a vendor's
 * reply or a URL.
 *
 * A secret is the value of a field whose name says so ({@link isSecretName}), every header value of a
 * `headers` object, the credentials and signature parameters of a URL (`http://user:pass@host/a?sig=…`), and
 * anything shaped like an API key.
 */

/** What replaces a secret in a printed config, and the credentials of a URL (`http://***@host`). */
export const MASK = '***'
/** What replaces a secret inside a message. */
export const REDACTED = '[redacted]'

/**
 * The one pattern of secret names: the last word of the name is key, token, secret, password or
 * authorization, in any case and spelling (`apiKey`, `api_key`, `X-Api-Key`, `token`, `GITHUB_TOKEN`,
 * `OPENAI_API_KEY`, `Authorization`), but not `apiKeyEnv` (it names a variable) or `maxTokens`.
 */
const SECRET_NAME = /(?:^|[^a-z])(?:api)?(?:key|token|secret|password|authorization)$/i

/** True for names that hold secrets (see {@link SECRET_NAME}). */
export function isSecretName(name: string): boolean {
  // camelCase words are split first: `apiKeyEnv` ends with the word Env, `monkey` is one word.
  return SECRET_NAME.test(name.replace(/([a-z0-9])([A-Z])/g, '$1_$2'))
}

/** Looks like an API key: `sk-…` (OpenAI, OpenRouter `sk-or-…`, Anthropic `sk-ant-…`), Groq `gsk_…`, xAI `xai-…`. */
const KEY_SHAPED = /\b(?:sk|gsk|xai)[-_][A-Za-z0-9_-]{12,}/g

/** A URL inside a text: a scheme and `://`, then anything up to a space, a quote or a bracket. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi

/** Credentials at the start of a URL: `scheme://user:password@`. */
const URL_USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)[^/?#\s]*@/i

/** A `name=value` parameter of a query or fragment (`?a=1&sig=…`, `#access_token=…`). */
const URL_PARAMETER = /([?&#;])([^=&#;]+)=([^&#;]*)/g

/**
 * Query parameters that carry a signature or a session rather than a choice: signed URLs (`sig`, SAS tokens;
 * `X-Amz-Signature`, `X-Amz-Credential`, `X-Amz-Security-Token`; `Signature`, `Policy`, `Key-Pair-Id`),
 * OAuth (`code`, `access_token`, `id_token`), and every secret name ({@link isSecretName}).
 */
const SECRET_PARAMETER = /sig|credential|policy|session|auth|^code$|pair-id|^id_token$/i

/** True for a query parameter whose value must not be shown (see {@link SECRET_PARAMETER}). */
export function isSecretParameter(name: string): boolean {
  let decoded = name
  try {
    decoded = decodeURIComponent(name)
  } catch {
    // not percent-encoded text: judged as written
  }
  return isSecretName(decoded) || SECRET_PARAMETER.test(decoded)
}

/**
 * The one masking of URLs, wherever a URL can reach a message, a record, a log or a printed config: in every
 * URL of `text`, the credentials (`http://user:pass@host` becomes `http://***@host`) and the values of
 * secret parameters (`?sig=…` becomes `?sig=***`). The rest of the URL stays readable.
 */
export function maskUrlSecrets(text: string): string {
  return text.replace(URL_IN_TEXT, (url) =>
    url
      .replace(URL_USERINFO, `$1${MASK}@`)
      .replace(URL_PARAMETER, (whole, sep: string, name: string, value: string) =>
        value !== '' && isSecretParameter(name) ? `${sep}${name}=${MASK}` : whole,
      ),
  )
}

/** The former name of {@link maskUrlSecrets} (plugins may use it). */
export const maskUrlCredentials = maskUrlSecrets

/**
 * A URL named in a message: scheme, host and path only. Credentials, the query (signed URLs carry tokens
 * under any name) and the fragment are left out; `fallback` stands for what is not a URL.
 */
export function redactUrl(url: string, fallback = '(invalid URL)'): string {
  try {
    const parsed = new URL(url)
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`
  } catch {
    return fallback
  }
}

/**
 * Removes every given secret (shorter than 4 characters they are not secrets but words), anything shaped like
 * an API key, and the secrets of any URL ({@link maskUrlSecrets}) from a message.
 */
export function redact(message: string, secrets: readonly string[] = []): string {
  let out = message
  for (const secret of secrets) {
    if (secret.length >= 4) out = out.split(secret).join(REDACTED)
  }
  return maskUrlSecrets(out.replace(KEY_SHAPED, REDACTED))
}

/**
 * The error to keep as the `cause` of another: `error` itself when neither its message nor its stack holds a
 * secret, else a copy (same name) with both redacted, so a log that prints causes prints no secret either.
 */
export function redactError(error: unknown, secrets: readonly string[] = []): unknown {
  if (!(error instanceof Error)) return typeof error === 'string' ? redact(error, secrets) : error
  const message = redact(error.message, secrets)
  const stack = error.stack === undefined ? undefined : redact(error.stack, secrets)
  if (message === error.message && stack === error.stack) return error
  const copy = new Error(message)
  copy.name = error.name
  copy.stack = stack
  return copy
}

/**
 * The string values stored under secret names anywhere in `tree` (plugin options, `process.env`), and under
 * `extraSecretNames` (a provider's `secretOptions`), for {@link redact}.
 */
export function secretValues(tree: unknown, extraSecretNames: readonly string[] = []): string[] {
  const found: string[] = []
  const walk = (node: unknown, name: string) => {
    if (typeof node === 'string') {
      if (isSecretName(name) || extraSecretNames.includes(name)) found.push(node)
    } else if (node && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) walk(child, key)
    }
  }
  walk(tree, '')
  return found
}

/**
 * A deep copy of `value` with every secret-named string replaced by `'***'`, every value of a `headers`
 * object too (they carry tokens: `Authorization`, `X-Api-Key`…), and the secrets of every URL
 * ({@link maskUrlSecrets}).
 */
export function maskSecrets<T>(value: T, extraSecretNames: readonly string[] = []): T {
  const extra = new Set(extraSecretNames)
  const walk = (node: unknown, inHeaders = false): unknown => {
    if (typeof node === 'string') return inHeaders && node.length > 0 ? MASK : maskUrlSecrets(node)
    if (Array.isArray(node)) return node.map((child) => walk(child))
    if (node === null || typeof node !== 'object') return node
    const out: Record<string, unknown> = {}
    for (const [key, child] of Object.entries(node)) {
      const secret = isSecretName(key) || extra.has(key)
      out[key] =
        secret && typeof child === 'string' && child.length > 0 ? MASK : walk(child, key === 'headers')
    }
    return out
  }
  return walk(value) as T
}
