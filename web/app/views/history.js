/**
 * History: dictations newest first (GET /v1/history), searched by text and filtered by app and dates, a page
 * at a time (nextCursor); an entry opens with every field, its recording (when kept) and its text to correct
 * (POST /v1/history/{id}/correction: dictum learns from it, see the Dictionary view); delete one, delete all
 * (after a confirmation), and export the entries that match as JSON, CSV or Markdown (GET /v1/history/export).
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, download, request } from '../lib/api.js'
import { when } from '../lib/format.js'
import { html } from '../lib/html.js'
import { Correction, Recording } from './history-entry.js'

const PAGE = 50

/** The query of the filters (`to` is inclusive on the page: the API's is exclusive, so the next day). */
function queryOf(filters, cursor) {
  const query = new URLSearchParams()
  if (filters.q.trim()) query.set('q', filters.q.trim())
  if (filters.app.trim()) query.set('app', filters.app.trim())
  if (filters.from) query.set('from', filters.from)
  if (filters.to) {
    const next = new Date(`${filters.to}T00:00:00Z`)
    next.setUTCDate(next.getUTCDate() + 1)
    query.set('to', next.toISOString().slice(0, 10))
  }
  if (cursor) query.set('cursor', cursor)
  return query
}

function Entry({ entry, onDelete, onClose, onCorrected }) {
  const heading = useRef(null)
  useEffect(() => heading.current?.focus(), [entry.id])
  return html`
    <section class="panel" aria-labelledby="entry-heading" id="entry">
      <h2 id="entry-heading" tabindex="-1" ref=${heading}>Entry of ${when(entry.timestamp)}</h2>
      <dl class="facts">
        <dt>Final text</dt><dd id="entry-final">${entry.finalText}</dd>
        ${entry.correctedText !== null && html`<dt>Corrected text</dt><dd id="entry-corrected">${entry.correctedText}</dd>`}
        ${entry.rawText !== entry.finalText && html`<dt>Raw text</dt><dd>${entry.rawText}</dd>`}
        <dt>App</dt><dd>${entry.appName || '—'}</dd>
        <dt>Window</dt><dd>${entry.windowTitle || '—'}</dd>
        <dt>Characters</dt><dd>${entry.characterCount}</dd>
        <dt>AI clean-up</dt><dd>${entry.wasAIProcessed ? 'yes' : 'no'}${entry.aiProcessingError ? ` (failed: ${entry.aiProcessingError})` : ''}</dd>
        ${entry.engine && html`<dt>Engine</dt><dd>${entry.engine}</dd>`}
        ${entry.provider && html`<dt>Provider</dt><dd>${entry.provider}</dd>`}
        ${entry.durationSeconds != null && html`<dt>Audio</dt><dd>${entry.durationSeconds} s</dd>`}
        ${entry.processingMs != null && html`<dt>Time to text</dt><dd>${entry.processingMs} ms</dd>`}
        <dt>Id</dt><dd><code>${entry.id}</code></dd>
      </dl>
      ${entry.hasAudio && html`<${Recording} entry=${entry} />`}
      <${Correction} entry=${entry} onCorrected=${onCorrected} />
      <div class="actions">
        <button type="button" class="danger" onClick=${() => onDelete(entry)}>Delete this entry</button>
        <button type="button" onClick=${onClose}>Close</button>
      </div>
    </section>
  `
}

export function History() {
  const [filters, setFilters] = useState({ q: '', app: '', from: '', to: '' })
  const [items, setItems] = useState([])
  const [cursor, setCursor] = useState(null)
  const [loading, setLoading] = useState(true)
  const [error, setError] = useState(null)
  const [open, setOpen] = useState(null)
  const [confirming, setConfirming] = useState(false)
  const [status, setStatus] = useState('')
  const [apps, setApps] = useState([])
  const cancelButton = useRef(null)

  const load = async (more = false) => {
    setLoading(true)
    setError(null)
    try {
      const query = queryOf(filters, more ? cursor : null)
      query.set('limit', String(PAGE))
      const page = await api(`/v1/history?${query}`)
      setItems((list) => (more ? [...list, ...page.items] : page.items))
      setCursor(page.nextCursor ?? null)
      setApps((known) => [...new Set([...known, ...page.items.map((e) => e.appName).filter(Boolean)])].sort())
      if (!more) setStatus(`${page.items.length}${page.nextCursor ? '+' : ''} entries.`)
    } catch (err) {
      setError(err.message)
    } finally {
      setLoading(false)
    }
  }

  // Searching as the person types, a moment after the last key.
  useEffect(() => {
    const timer = setTimeout(() => load(false), 250)
    return () => clearTimeout(timer)
  }, [filters])
  useEffect(() => {
    if (confirming) cancelButton.current?.focus()
  }, [confirming])

  const set = (name) => (e) => setFilters((f) => ({ ...f, [name]: e.currentTarget.value }))

  const remove = async (entry) => {
    try {
      await request(`/v1/history/${entry.id}`, { method: 'DELETE' })
      setItems((list) => list.filter((e) => e.id !== entry.id))
      setOpen(null)
      setStatus('Entry deleted.')
    } catch (err) {
      setError(err.message)
    }
  }

  // The entry as the correction left it, in the list and open.
  const corrected = (entry) => {
    setItems((list) => list.map((e) => (e.id === entry.id ? entry : e)))
    setOpen(entry)
  }

  const removeAll = async () => {
    try {
      const { deleted } = await api('/v1/history?confirm=true', { method: 'DELETE' })
      setItems([])
      setCursor(null)
      setOpen(null)
      setConfirming(false)
      setStatus(`${deleted} entries deleted.`)
    } catch (err) {
      setError(err.message)
    }
  }

  const exportAs = async (format) => {
    try {
      const query = queryOf(filters, null)
      query.set('format', format)
      const name = await download(`/v1/history/export?${query}`, `dictum-history.${format}`)
      setStatus(`Exported ${name}.`)
    } catch (err) {
      setError(err.message)
    }
  }

  return html`
    <h1>History</h1>
    <form class="panel" role="search" aria-label="History filters" onSubmit=${(e) => {
      e.preventDefault()
      load(false)
    }}>
      <div class="row">
        <div class="field">
          <label for="history-q">Search text</label>
          <input id="history-q" type="search" value=${filters.q} onInput=${set('q')} />
        </div>
        <div class="field">
          <label for="history-app">App</label>
          <input id="history-app" type="text" list="history-apps" value=${filters.app} onInput=${set('app')} />
          <datalist id="history-apps">${apps.map((a) => html`<option key=${a} value=${a} />`)}</datalist>
        </div>
        <div class="field">
          <label for="history-from">From</label>
          <input id="history-from" type="date" value=${filters.from} onInput=${set('from')} />
        </div>
        <div class="field">
          <label for="history-to">To (inclusive)</label>
          <input id="history-to" type="date" value=${filters.to} onInput=${set('to')} />
        </div>
      </div>
    </form>

    <div class="actions">
      <span>Export what matches:</span>
      <button type="button" onClick=${() => exportAs('json')}>JSON</button>
      <button type="button" onClick=${() => exportAs('csv')}>CSV</button>
      <button type="button" onClick=${() => exportAs('md')}>Markdown</button>
      <button type="button" class="danger" id="delete-all" onClick=${() => setConfirming(true)}>Delete all…</button>
    </div>
    ${
      confirming &&
      html`<div class="panel" role="alertdialog" aria-labelledby="confirm-text" aria-modal="false">
        <p id="confirm-text"><strong>Delete the whole history?</strong> Every entry is deleted, not only those shown. This cannot be undone.</p>
        <div class="actions">
          <button type="button" class="danger" id="confirm-delete-all" onClick=${removeAll}>Delete everything</button>
          <button type="button" ref=${cancelButton} onClick=${() => setConfirming(false)}>Cancel</button>
        </div>
      </div>`
    }
    <p role="status" class="muted" id="history-status">${loading ? 'Loading…' : status}</p>
    ${error && html`<p class="error" role="alert">${error}</p>`}

    ${open && html`<${Entry} key=${open.id} entry=${open} onDelete=${remove} onClose=${() => setOpen(null)} onCorrected=${corrected} />`}

    <section aria-labelledby="entries-heading">
      <h2 id="entries-heading">Entries</h2>
      ${!loading && items.length === 0 && html`<p class="muted">No entries${filters.q || filters.app || filters.from || filters.to ? ' match' : ' yet'}.</p>`}
      <ul class="entries" id="history-list">
        ${items.map(
          (entry) => html`<li key=${entry.id} data-id=${entry.id}>
            <div class="entry-text">
              <button type="button" class="entry-open" onClick=${() => setOpen(entry)}>${(entry.correctedText ?? entry.finalText) || html`<span class="muted">(empty)</span>`}</button>
              <div class="muted">${when(entry.timestamp)}${entry.appName ? ` · ${entry.appName}` : ''}${entry.windowTitle ? ` — ${entry.windowTitle}` : ''}</div>
            </div>
            <button type="button" aria-label=${`Delete entry of ${when(entry.timestamp)}`} onClick=${() => remove(entry)}>Delete</button>
          </li>`,
        )}
      </ul>
      ${cursor && html`<button type="button" onClick=${() => load(true)} disabled=${loading}>Load more</button>`}
    </section>
  `
}
