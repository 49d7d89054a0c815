/**
 * The page's way to dictum's API: same-origin fetches with the token (when dictum has `api.token`, the page
 * asks for it once and keeps it in this tab's sessionStorage, or in localStorage when the person asks to be
 * remembered), errors as ApiError with dictum's message and code (both of dictum's and OpenAI's shapes), and
 * server-sent events read from a fetch (EventSource cannot send the Authorization header).
 */

const TOKEN_KEY = 'dictum.token'

export const token = {
  get() {
    return sessionStorage.getItem(TOKEN_KEY) ?? localStorage.getItem(TOKEN_KEY)
  },
  set(value, remember) {
    sessionStorage.setItem(TOKEN_KEY, value)
    if (remember) localStorage.setItem(TOKEN_KEY, value)
    else localStorage.removeItem(TOKEN_KEY)
  },
  clear() {
    sessionStorage.removeItem(TOKEN_KEY)
    localStorage.removeItem(TOKEN_KEY)
  },
}

export class ApiError extends Error {
  constructor(status, message, code, param) {
    super(message)
    this.status = status
    this.code = code ?? null
    this.param = param ?? null
  }
}

let unauthorized = () => {}

/** Called when the API answers 401: the token is missing or wrong. */
export function onUnauthorized(callback) {
  unauthorized = callback
}

function authHeaders() {
  const value = token.get()
  return value ? { authorization: `Bearer ${value}` } : {}
}

/** The ApiError of a response that is not ok. */
export async function errorOf(response) {
  let body = null
  try {
    body = await response.json()
  } catch {
    // not JSON
  }
  const error = body?.error
  if (typeof error === 'string') return new ApiError(response.status, error, body.code, body.param)
  if (error && typeof error === 'object')
    return new ApiError(response.status, error.message, error.code, error.param)
  return new ApiError(response.status, `${response.status} ${response.statusText}`.trim(), null)
}

/**
 * A request to the API; resolves with the Response when it is ok, else throws its ApiError (a 401 also calls
 * the onUnauthorized callback). `json` is sent as JSON; `body` as it is.
 */
export async function request(path, { method = 'GET', json, body, headers = {}, signal } = {}) {
  const init = { method, headers: { ...authHeaders(), ...headers }, signal }
  if (json !== undefined) {
    init.body = JSON.stringify(json)
    init.headers['content-type'] = 'application/json'
  } else if (body !== undefined) init.body = body
  let response
  try {
    response = await fetch(path, init)
  } catch (err) {
    if (err.name === 'AbortError') throw err
    throw new ApiError(0, 'dictum cannot be reached: is `dictum serve` running?', 'NETWORK')
  }
  if (!response.ok) {
    const error = await errorOf(response)
    if (response.status === 401) unauthorized()
    throw error
  }
  return response
}

/** A request answered with JSON. */
export async function api(path, options) {
  return (await request(path, options)).json()
}

/** The subprotocols of the realtime WebSocket: the token travels as one (browsers cannot set headers). */
export function realtimeProtocols() {
  const value = token.get()
  return value ? ['realtime', `openai-insecure-api-key.${value}`] : ['realtime']
}

/** The server-sent events of a response, as `{event, data}` with the data parsed as JSON. */
export async function* events(response) {
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  for (;;) {
    const { value, done } = await reader.read()
    if (done) return
    buffer += decoder.decode(value, { stream: true }).replaceAll('\r\n', '\n')
    let end = buffer.indexOf('\n\n')
    while (end >= 0) {
      const block = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      end = buffer.indexOf('\n\n')
      let event = 'message'
      const data = []
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim()
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''))
      }
      if (data.length > 0) yield { event, data: JSON.parse(data.join('\n')) }
    }
  }
}

/** Saves a Blob as a file the browser downloads. */
export function saveBlob(blob, filename) {
  const url = URL.createObjectURL(blob)
  const link = document.createElement('a')
  link.href = url
  link.download = filename
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

/** Downloads an API answer as a file (the name from Content-Disposition, else `fallback`). */
export async function download(path, fallback) {
  const response = await request(path)
  const disposition = response.headers.get('content-disposition') ?? ''
  const name = /filename="([^"]+)"/.exec(disposition)?.[1] ?? fallback
  saveBlob(await response.blob(), name)
  return name
}

/**
 * A form upload with upload progress (fetch reports none): resolves with the parsed JSON answer, rejects
 * with its ApiError.
 */
export function upload(path, form, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    xhr.open('POST', path)
    for (const [name, value] of Object.entries(authHeaders())) xhr.setRequestHeader(name, value)
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total)
    }
    xhr.onerror = () =>
      reject(new ApiError(0, 'dictum cannot be reached: is `dictum serve` running?', 'NETWORK'))
    xhr.onload = async () => {
      const response = new Response(xhr.responseText, { status: xhr.status })
      if (xhr.status >= 200 && xhr.status < 300) resolve(JSON.parse(xhr.responseText))
      else {
        if (xhr.status === 401) unauthorized()
        reject(await errorOf(response))
      }
    }
    xhr.send(form)
  })
}
