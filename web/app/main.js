/**
 * dictum's page: a header with the views, the view of the URL's hash, and the token form when the API asks
 * for one. Preact components written with htm (tagged templates, so no build step).
 */

import { render } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { api, onUnauthorized, token } from './lib/api.js'
import { html } from './lib/html.js'
import { Dictate } from './views/dictate.js'
import { Dictionary } from './views/dictionary.js'
import { Engines } from './views/engines.js'
import { Files } from './views/files.js'
import { History } from './views/history.js'

const VIEWS = [
  { id: 'dictate', label: 'Dictate', View: Dictate },
  { id: 'files', label: 'Files', View: Files },
  { id: 'history', label: 'History', View: History },
  { id: 'dictionary', label: 'Dictionary', View: Dictionary },
  { id: 'engines', label: 'Engines & models', View: Engines },
]

function viewOfHash() {
  const id = location.hash.replace(/^#\/?/, '')
  return VIEWS.find((v) => v.id === id) ?? VIEWS[0]
}

function TokenForm({ onSaved }) {
  const [value, setValue] = useState('')
  const [remember, setRemember] = useState(false)
  const [error, setError] = useState(null)
  const [checking, setChecking] = useState(false)
  const submit = async (e) => {
    e.preventDefault()
    setChecking(true)
    setError(null)
    token.set(value.trim(), remember)
    try {
      await api('/v1/engines')
      onSaved()
    } catch (err) {
      token.clear()
      setError(err.status === 401 ? 'dictum refused this token.' : err.message)
    } finally {
      setChecking(false)
    }
  }
  return html`
    <h1>API token</h1>
    <form class="panel" onSubmit=${submit}>
      <p>This dictum has an API token (<code>api.token</code> in its config file). Enter it once to use the page.</p>
      <div class="field">
        <label for="token">Token</label>
        <input id="token" type="password" autocomplete="current-password" required value=${value}
          aria-describedby=${error ? 'token-error' : undefined} aria-invalid=${error ? 'true' : undefined}
          onInput=${(e) => setValue(e.currentTarget.value)} />
        ${error && html`<p id="token-error" class="error" role="alert">${error}</p>`}
      </div>
      <div class="field">
        <input id="remember" type="checkbox" checked=${remember} onChange=${(e) => setRemember(e.currentTarget.checked)} />
        <label for="remember" class="inline">Remember it in this browser</label>
        <p class="hint">Otherwise it is kept for this tab only.</p>
      </div>
      <button class="primary" type="submit" disabled=${checking}>Use this token</button>
    </form>
  `
}

function App() {
  const [view, setView] = useState(viewOfHash)
  const [needToken, setNeedToken] = useState(false)
  // Remounts the view when a token is entered, so it loads again.
  const [generation, setGeneration] = useState(0)

  useEffect(() => {
    const onHash = () => setView(viewOfHash())
    addEventListener('hashchange', onHash)
    onUnauthorized(() => setNeedToken(true))
    return () => removeEventListener('hashchange', onHash)
  }, [])
  useEffect(() => {
    document.title = `${view.label} · dictum`
  }, [view])

  const { View } = view
  return html`
    <a class="skip" href="#main" onClick=${(e) => {
      e.preventDefault()
      document.getElementById('main')?.focus()
    }}>Skip to content</a>
    <header class="top">
      <p class="brand">dictum</p>
      <nav aria-label="Views">
        <ul>
          ${VIEWS.map(
            (v) => html`<li key=${v.id}>
              <a href=${`#/${v.id}`} aria-current=${v === view ? 'page' : undefined}>${v.label}</a>
            </li>`,
          )}
        </ul>
      </nav>
    </header>
    <main id="main" tabindex="-1">
      ${
        needToken
          ? html`<${TokenForm} onSaved=${() => {
              setNeedToken(false)
              setGeneration((g) => g + 1)
            }} />`
          : html`<${View} key=${`${view.id}-${generation}`} />`
      }
    </main>
  `
}

render(html`<${App} />`, document.getElementById('app'))
