/**
 * Parts of an open history entry: its recording (GET /v1/history/{id}/audio, fetched with the token and
 * played from a blob URL: an <audio> element cannot send the Authorization header), and its text to correct
 * (POST /v1/history/{id}/correction): the text the person kept, from which dictum learns suggestions.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, request } from '../lib/api.js'
import { html } from '../lib/html.js'

export function Recording({ entry }) {
  const [url, setUrl] = useState(null)
  const [error, setError] = useState(null)
  useEffect(() => {
    let objectUrl = null
    let gone = false
    request(`/v1/history/${entry.id}/audio`)
      .then((response) => response.blob())
      .then((blob) => {
        if (gone) return
        objectUrl = URL.createObjectURL(blob)
        setUrl(objectUrl)
      })
      .catch((err) => setError(err.message))
    return () => {
      gone = true
      if (objectUrl) URL.revokeObjectURL(objectUrl)
    }
  }, [entry.id])
  return html`
    <div class="field recording">
      <p id="entry-audio-label"><strong>Recording</strong></p>
      ${error && html`<p class="error" role="alert">${error}</p>`}
      ${!error && !url && html`<p class="muted">Loading the recording…</p>`}
      ${url && html`<audio id="entry-audio" controls preload="metadata" src=${url} aria-labelledby="entry-audio-label"></audio>`}
    </div>
  `
}

/** "1 suggestion" / "3 suggestions". */
const suggestionCount = (n) => `${n} suggestion${n === 1 ? '' : 's'}`
/** What a suggestion would add: the custom word, or the replacement's text. */
const proposed = (s) => (s.kind === 'customWord' ? s.entry.text : s.entry.replacement)

export function Correction({ entry, onCorrected }) {
  const [text, setText] = useState(entry.correctedText ?? entry.finalText)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState(null)
  const [result, setResult] = useState(null)

  const submit = async (e) => {
    e.preventDefault()
    setBusy(true)
    setError(null)
    setResult(null)
    try {
      const answer = await api(`/v1/history/${entry.id}/correction`, { method: 'POST', json: { text } })
      setResult(answer.suggestions)
      onCorrected(answer.entry)
    } catch (err) {
      setError(err.message)
    } finally {
      setBusy(false)
    }
  }

  return html`
    <form class="entry-form" id="correction-form" onSubmit=${submit} aria-label="Correct the text">
      <div class="field">
        <label for="entry-correction">The text you kept</label>
        <textarea id="entry-correction" value=${text} aria-describedby="entry-correction-hint"
          aria-invalid=${error ? 'true' : undefined}
          onInput=${(e) => setText(e.currentTarget.value)}></textarea>
        <p id="entry-correction-hint" class="hint">Fix what the engine misheard and save: dictum learns from it, and suggests dictionary entries (see Dictionary).</p>
      </div>
      ${error && html`<p class="error" role="alert">${error}</p>`}
      <div class="actions">
        <button class="primary" type="submit" disabled=${busy}>Save correction</button>
        <p role="status" class="ok" id="correction-status">${
          result === null
            ? ''
            : result.length === 0
              ? 'Correction saved. Nothing to learn from it.'
              : html`Correction saved: ${suggestionCount(result.length)} (${result.map(proposed).join(', ')}). <a href="#/dictionary">Review in Dictionary</a>.`
        }</p>
      </div>
    </form>
  `
}
