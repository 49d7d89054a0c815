/**
 * Engines & models: each speech engine with its status, the reason and fix when it cannot run, and its
 * capabilities; the settings a page may change (the active engine, the AI provider, history on or off:
 * PATCH /v1/settings writes them to the config file and applies them at once); the model catalog with
 * install state and a pull button whose progress bar follows the pull's server-sent events.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, events, request } from '../lib/api.js'
import { bytes } from '../lib/format.js'
import { html } from '../lib/html.js'

const PHASES = { download: 'Downloading', verify: 'Checking the checksum', extract: 'Unpacking' }

function capabilities(c) {
  if (!c) return '—'
  const parts = []
  if (c.streaming) parts.push('live partial text')
  if (c.customWords) parts.push('custom words')
  if (c.wordTimestamps) parts.push('word times')
  if (c.segmentTimestamps) parts.push('segment times')
  parts.push(`languages: ${c.languages?.join(', ') ?? '—'}`)
  if (c.maxAudioSeconds) parts.push(`pieces up to ${c.maxAudioSeconds} s`)
  return parts.join(' · ')
}

function Settings({ onChanged }) {
  const [settings, setSettings] = useState(null)
  const [draft, setDraft] = useState(null)
  const [error, setError] = useState(null)
  const [status, setStatus] = useState('')
  const [busy, setBusy] = useState(false)

  useEffect(() => {
    api('/v1/settings')
      .then((s) => {
        setSettings(s)
        setDraft({ engine: s.speech.engine, provider: s.ai.provider, history: s.history.enabled })
      })
      .catch((err) =>
        setError(err.status === 404 ? 'This dictum cannot change settings from the page.' : err.message),
      )
  }, [])

  const save = async (e) => {
    e.preventDefault()
    const change = {}
    if (draft.engine !== settings.speech.engine) change.speech = { engine: draft.engine }
    if (draft.provider !== settings.ai.provider) change.ai = { provider: draft.provider }
    if (draft.history !== settings.history.enabled) change.history = { enabled: draft.history }
    if (Object.keys(change).length === 0) {
      setStatus('Nothing changed.')
      return
    }
    setBusy(true)
    setError(null)
    try {
      const next = await api('/v1/settings', { method: 'PATCH', json: change })
      setSettings(next)
      setStatus(`Saved to ${next.configFile?.path ?? 'the config file'} and applied.`)
      onChanged()
    } catch (err) {
      setError(err.message)
    } finally {
      setBusy(false)
    }
  }

  return html`
    <section class="panel" aria-labelledby="settings-heading">
      <h2 id="settings-heading">Settings</h2>
      ${error && html`<p class="error" role="alert">${error}</p>`}
      ${
        draft &&
        html`<form onSubmit=${save}>
          <div class="row">
            <div class="field">
              <label for="setting-engine">Speech engine</label>
              <select id="setting-engine" value=${draft.engine} onChange=${(e) => setDraft({ ...draft, engine: e.currentTarget.value })}>
                ${settings.available.engines.map((id) => html`<option key=${id} value=${id}>${id}</option>`)}
              </select>
            </div>
            <div class="field">
              <label for="setting-provider">AI clean-up provider</label>
              <select id="setting-provider" value=${draft.provider} onChange=${(e) => setDraft({ ...draft, provider: e.currentTarget.value })}>
                ${settings.available.providers.map((id) => html`<option key=${id} value=${id}>${id}</option>`)}
              </select>
            </div>
            <div class="field">
              <input id="setting-history" type="checkbox" checked=${draft.history}
                onChange=${(e) => setDraft({ ...draft, history: e.currentTarget.checked })} />
              <label for="setting-history" class="inline">Keep a history of dictations</label>
            </div>
          </div>
          <div class="actions">
            <button class="primary" type="submit" disabled=${busy}>Save and apply</button>
            <span role="status" class="ok">${status}</span>
          </div>
        </form>`
      }
    </section>
  `
}

function Pull({ model, onInstalled }) {
  const [progress, setProgress] = useState(null) // { phase, receivedBytes, totalBytes }
  const [error, setError] = useState(null)
  const [busy, setBusy] = useState(false)

  const pull = async () => {
    setBusy(true)
    setError(null)
    setProgress({ phase: 'download', receivedBytes: 0, totalBytes: model.sizeBytes ?? null })
    try {
      const response = await request(`/v1/models/${encodeURIComponent(model.id)}/pull`, {
        method: 'POST',
        headers: { accept: 'text/event-stream' },
      })
      for await (const { event, data } of events(response)) {
        if (event === 'progress') setProgress(data)
        else if (event === 'done') onInstalled(data)
        else if (event === 'error') setError(data.error)
      }
    } catch (err) {
      setError(err.message)
    } finally {
      setBusy(false)
      setProgress(null)
    }
  }

  const total = progress?.totalBytes
  const fraction = progress && total ? progress.receivedBytes / total : undefined
  const barId = `pull-${model.id}`
  return html`
    ${
      progress
        ? html`<div class="pull-progress">
            <label for=${barId}>${PHASES[progress.phase] ?? progress.phase} ${model.displayName}</label>
            <progress id=${barId} max="1" value=${progress.phase === 'download' ? fraction : 1}
              data-phase=${progress.phase} data-received=${progress.receivedBytes}></progress>
            <span class="muted">${bytes(progress.receivedBytes)} of ${bytes(total)}${progress.etaSeconds != null && progress.phase === 'download' ? `, ${Math.ceil(progress.etaSeconds)} s left` : ''}</span>
          </div>`
        : html`<button type="button" onClick=${pull} disabled=${busy} aria-label=${`Pull ${model.displayName}`}>Pull</button>`
    }
    ${error && html`<p class="error" role="alert">${error}</p>`}
  `
}

export function Engines() {
  const [engines, setEngines] = useState(null)
  const [models, setModels] = useState(null)
  const [error, setError] = useState(null)
  const [generation, setGeneration] = useState(0)

  useEffect(() => {
    api('/v1/engines')
      .then((r) => setEngines(r.items))
      .catch((err) => setError(err.message))
    api('/v1/models')
      .then((r) => setModels(r.data.filter((m) => m.kind === 'model')))
      .catch((err) => setError(err.message))
  }, [generation])

  const installed = (result) =>
    setModels((list) =>
      list.map((m) => (m.id === result.id ? { ...m, installed: true, sizeOnDisk: result.sizeOnDisk } : m)),
    )

  return html`
    <h1>Engines & models</h1>
    ${error && html`<p class="error" role="alert">${error}</p>`}
    <${Settings} onChanged=${() => setGeneration((g) => g + 1)} />
    <section class="panel" aria-labelledby="engines-heading">
      <h2 id="engines-heading">Speech engines</h2>
      ${engines === null && html`<p class="muted">Loading…</p>`}
      ${
        engines &&
        html`<table id="engines">
          <caption class="visually-hidden">Speech engines</caption>
          <thead><tr><th scope="col">Engine</th><th scope="col">Status</th><th scope="col">Capabilities</th></tr></thead>
          <tbody>
            ${engines.map(
              (e) => html`<tr key=${e.id} data-id=${e.id}>
                <td><strong>${e.displayName}</strong>${e.active ? html` <span class="badge ready">active</span>` : ''}<div class="muted"><code>${e.id}</code></div></td>
                <td><span class=${`badge ${e.status}`}>${e.status}</span>
                  ${e.reason && html`<div>${e.reason}</div>`}${e.fix && html`<div class="muted">${e.fix}</div>`}</td>
                <td>${capabilities(e.capabilities)}</td>
              </tr>`,
            )}
          </tbody>
        </table>`
      }
    </section>
    <section class="panel" aria-labelledby="models-heading">
      <h2 id="models-heading">Model catalog</h2>
      ${models === null && html`<p class="muted">Loading…</p>`}
      ${
        models &&
        html`<table id="models">
          <caption class="visually-hidden">Model catalog</caption>
          <thead><tr><th scope="col">Model</th><th scope="col">Engine</th><th scope="col">Size</th><th scope="col">Installed</th></tr></thead>
          <tbody>
            ${models.map(
              (m) => html`<tr key=${m.id} data-id=${m.id} data-installed=${m.installed ? 'true' : 'false'}>
                <td><strong>${m.displayName}</strong><div class="muted"><code>${m.id}</code> · ${m.languages?.join(', ')}</div></td>
                <td>${m.engine}</td>
                <td>${bytes(m.sizeBytes)}</td>
                <td>${m.installed ? html`<span class="badge installed">installed</span>` : html`<${Pull} model=${m} onInstalled=${installed} />`}</td>
              </tr>`,
            )}
          </tbody>
        </table>`
      }
    </section>
  `
}
