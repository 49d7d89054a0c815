/**
 * Dictate: a record button (and Alt+Shift+R) that streams the microphone to dictum's realtime session; the
 * text grows as it is recognised, each utterance final at its pause. At the end: the whole text with a copy
 * button, the engine and AI provider used, and the raw and cleaned text when an AI provider cleaned it up
 * (the text goes through POST /v1/postprocess, the step /v1/dictate runs).
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, api } from '../lib/api.js'
import { Dictation } from '../lib/dictation.js'
import { html } from '../lib/html.js'

const SHORTCUT = 'Alt+Shift+R'

function isShortcut(e) {
  return e.altKey && e.shiftKey && !e.ctrlKey && !e.metaKey && e.code === 'KeyR'
}

export function Dictate() {
  const [state, setState] = useState('idle') // idle | starting | recording | finishing
  const [items, setItems] = useState([]) // { id, text, state: open | completed | failed, error }
  const [error, setError] = useState(null)
  const [engine, setEngine] = useState(null)
  const [provider, setProvider] = useState(null)
  const [cleaned, setCleaned] = useState(null) // { text, provider, model } | { error }
  const [copied, setCopied] = useState(false)
  const dictation = useRef(null)
  const button = useRef(null)

  useEffect(() => {
    api('/v1/settings')
      .then((s) => {
        setProvider(s.ai.provider)
        setEngine((current) => current ?? s.speech.engine)
      })
      .catch(() => setProvider(null))
  }, [])

  const updateItem = (id, change) =>
    setItems((list) => {
      const index = list.findIndex((item) => item.id === id)
      if (index < 0) return [...list, { id, text: '', state: 'open', ...change(null) }]
      const next = [...list]
      next[index] = { ...list[index], ...change(list[index]) }
      return next
    })

  const onEvent = (event) => {
    switch (event.type) {
      case 'session.created':
        setEngine(event.session?.audio?.input?.transcription?.model ?? null)
        break
      case 'input_audio_buffer.speech_started':
        updateItem(event.item_id, () => ({}))
        break
      case 'conversation.item.input_audio_transcription.delta':
        updateItem(event.item_id, (item) => ({ text: (item?.text ?? '') + event.delta }))
        break
      case 'conversation.item.input_audio_transcription.completed':
        updateItem(event.item_id, () => ({ text: event.transcript, state: 'completed' }))
        break
      case 'conversation.item.input_audio_transcription.failed':
        updateItem(event.item_id, () => ({ state: 'failed', error: event.error?.message ?? 'failed' }))
        break
      case 'error':
        if (event.error?.code !== 'input_audio_buffer_commit_empty') setError(event.error?.message ?? 'error')
        break
      case 'closed':
        if (event.code !== 1000 && event.code !== 1005) {
          setError(
            event.code === 1006
              ? 'The live session could not open or was cut off (is dictum running? is the token right?).'
              : `The live session ended: ${event.reason || `code ${event.code}`}.`,
          )
        }
        break
    }
  }

  const start = async () => {
    setError(null)
    setItems([])
    setCleaned(null)
    setCopied(false)
    setState('starting')
    const session = new Dictation({ onEvent })
    dictation.current = session
    try {
      await session.start()
      setState('recording')
    } catch (err) {
      dictation.current = null
      await session.stop().catch(() => {})
      setError(
        err.name === 'NotAllowedError'
          ? 'The browser was not allowed to use the microphone.'
          : `The microphone could not be opened: ${err.message}`,
      )
      setState('idle')
    }
  }

  const stop = async () => {
    const session = dictation.current
    if (!session) return
    setState('finishing')
    await session.stop()
    dictation.current = null
    setState('idle')
  }

  const toggle = () => {
    if (state === 'idle') start()
    else if (state === 'recording') stop()
  }

  useEffect(() => {
    const onKey = (e) => {
      if (!isShortcut(e)) return
      e.preventDefault()
      button.current?.click()
    }
    addEventListener('keydown', onKey)
    return () => removeEventListener('keydown', onKey)
  }, [])
  // Leaving the view ends the session.
  useEffect(() => () => dictation.current?.stop(), [])

  const finalText = items
    .filter((item) => item.state === 'completed' && item.text)
    .map((item) => item.text)
    .join(' ')
  const liveText = items
    .filter((item) => item.state !== 'failed')
    .map((item) => item.text)
    .filter(Boolean)
    .join(' ')
  const done = state === 'idle' && items.length > 0

  // After the session: AI clean-up of the whole text, when a provider is set.
  useEffect(() => {
    if (!done || !finalText || !provider || provider === 'none') return
    let cancelled = false
    api('/v1/postprocess', { method: 'POST', json: { text: finalText } })
      .then((r) => !cancelled && setCleaned(r))
      .catch(
        (err) => !cancelled && setCleaned({ error: err instanceof ApiError ? err.message : String(err) }),
      )
    return () => {
      cancelled = true
    }
  }, [done, finalText, provider])

  const copy = async (text) => {
    try {
      await navigator.clipboard.writeText(text)
      setCopied(true)
    } catch {
      setError('The browser did not allow copying to the clipboard.')
    }
  }

  const recording = state === 'recording'
  const label = {
    idle: 'Start dictation',
    starting: 'Starting…',
    recording: 'Stop dictation',
    finishing: 'Finishing…',
  }[state]
  const shown = cleaned?.text ?? finalText

  return html`
    <h1>Dictate</h1>
    <section class="panel" aria-labelledby="record-heading">
      <h2 id="record-heading" class="visually-hidden">Recording</h2>
      <div class="actions">
        <button ref=${button} id="record" class="record primary" type="button" aria-pressed=${recording ? 'true' : 'false'}
          aria-keyshortcuts=${SHORTCUT} disabled=${state === 'starting' || state === 'finishing'} onClick=${toggle}>
          ${label}
        </button>
        <span class="hint">Shortcut: <kbd>Alt</kbd>+<kbd>Shift</kbd>+<kbd>R</kbd>. Pauses end each sentence.</span>
      </div>
      <p class="muted" id="session-facts">
        Engine: <span id="engine">${engine ?? '—'}</span> ·
        AI provider: <span id="provider">${provider ?? 'unknown'}</span>
      </p>
      ${error && html`<p class="error" role="alert">${error}</p>`}
    </section>

    <section aria-labelledby="live-heading">
      <h2 id="live-heading">${recording || state === 'finishing' ? 'Listening' : 'Text'}</h2>
      <div id="live-text" class="live" aria-live="polite" aria-atomic="false">
        ${liveText || html`<span class="muted">${recording ? 'Speak now…' : 'Press Start and speak.'}</span>`}
      </div>
      <ol class="utterances" id="utterances" aria-label="Utterances">
        ${items.map(
          (item) => html`<li key=${item.id} data-state=${item.state}>
            ${item.state === 'failed' ? html`<span class="error">${item.error}</span>` : item.text || '…'}
          </li>`,
        )}
      </ol>
    </section>

    ${
      done &&
      html`<section class="panel" aria-labelledby="final-heading">
        <h2 id="final-heading">Final text</h2>
        <output id="final-text" class="text-out" data-ready="true">${shown}</output>
        <div class="actions">
          <button type="button" onClick=${() => copy(shown)} disabled=${!shown}>Copy to clipboard</button>
          <span role="status" class="ok">${copied ? 'Copied.' : ''}</span>
        </div>
        ${
          cleaned?.text !== undefined &&
          html`<div class="columns">
            <div><h3>Raw</h3><p id="raw-text" class="text-out">${finalText}</p></div>
            <div><h3>Cleaned by ${cleaned.provider} (${cleaned.model})</h3><p id="cleaned-text" class="text-out">${cleaned.text}</p></div>
          </div>`
        }
        ${cleaned?.error && html`<p class="error" role="alert">AI clean-up failed: ${cleaned.error}</p>`}
      </section>`
    }
  `
}
