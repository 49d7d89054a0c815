/**
 * Suggestions learned from corrections (GET /v1/dictionary/suggestions): what each would add, what the
 * engine heard, and its replay on the kept recordings (recordings checked, fixed, broken; word error rate
 * before → after). Replay runs it (POST …/replay), Accept adds it to the dictionary (POST …/accept), Dismiss
 * sets it aside (POST …/dismiss).
 */
import { useEffect, useState } from 'preact/hooks'
import { api } from '../lib/api.js'
import { html } from '../lib/html.js'

const KIND = { customWord: 'Custom word', replacement: 'Replacement' }

/** What accepting it adds, as the dictionary lists show it. */
function proposal(s) {
  if (s.kind === 'customWord') return s.entry.text
  return `${s.entry.triggers.join(', ')} → ${s.entry.replacement}`
}

const percent = (wer) => `${Math.round(wer * 1000) / 10}%`

function ReplayFigures({ replay }) {
  if (!replay) return html`<span class="muted">Not replayed yet</span>`
  return html`<span class="replay-figures" data-checked=${replay.checked} data-fixed=${replay.fixed}
      data-broken=${replay.broken} data-wer-before=${replay.werBefore} data-wer-after=${replay.werAfter}>
    ${replay.checked} checked, ${replay.fixed} fixed, ${replay.broken} broken; WER ${percent(replay.werBefore)} → ${percent(replay.werAfter)}${replay.complete ? '' : ' (stopped at its time bound)'}
  </span>`
}

export function Suggestions({ reloadKey, onAccepted, onStatus }) {
  const [items, setItems] = useState(null)
  const [busy, setBusy] = useState(null)
  const [error, setError] = useState(null)

  useEffect(() => {
    api('/v1/dictionary/suggestions')
      .then((list) => setItems(list.items))
      .catch((err) => setError(err.message))
  }, [reloadKey])

  const act = (suggestion, action) => async () => {
    setBusy(`${suggestion.id}:${action}`)
    setError(null)
    try {
      const updated = await api(`/v1/dictionary/suggestions/${suggestion.id}/${action}`, { method: 'POST' })
      setItems((list) => list.map((s) => (s.id === updated.id ? updated : s)))
      const name = proposal(updated)
      if (action === 'accept') {
        onAccepted()
        onStatus(`Suggestion accepted: ${name} is in the dictionary.`)
      } else if (action === 'dismiss') onStatus(`Suggestion dismissed: ${name}.`)
      else onStatus(`Replayed: ${name}.`)
    } catch (err) {
      setError(err.message)
    } finally {
      setBusy(null)
    }
  }

  return html`
    <section class="panel" aria-labelledby="suggestions-heading" id="dictionary-suggestions">
      <h2 id="suggestions-heading">Suggestions from your corrections</h2>
      <p class="muted">Correct an entry in History and dictum proposes what would have heard it right. Replay checks a suggestion on your kept recordings before you accept it.</p>
      ${error && html`<p class="error" role="alert">${error}</p>`}
      ${items === null && !error && html`<p class="muted">Loading…</p>`}
      ${items?.length === 0 && html`<p class="muted">No suggestions yet.</p>`}
      ${
        items?.length > 0 &&
        html`<table>
          <caption class="visually-hidden">Suggestions</caption>
          <thead><tr>
            <th scope="col">Kind</th><th scope="col">Suggestion</th><th scope="col">Heard</th>
            <th scope="col">Seen in</th><th scope="col">Replay</th><th scope="col">State</th>
            <th scope="col"><span class="visually-hidden">Actions</span></th>
          </tr></thead>
          <tbody>
            ${items.map(
              (s) => html`<tr key=${s.id} data-id=${s.id} data-state=${s.state}>
                <td>${KIND[s.kind] ?? s.kind}</td>
                <td class="proposal">${proposal(s)}</td>
                <td>${s.heard}</td>
                <td>${s.evidence.length} ${s.evidence.length === 1 ? 'entry' : 'entries'}</td>
                <td class="replay">${busy === `${s.id}:replay` ? html`<span class="muted">Replaying…</span>` : html`<${ReplayFigures} replay=${s.replay} />`}</td>
                <td class="state">${s.state}</td>
                <td class="actions">${
                  s.state === 'pending' &&
                  html`
                    <button type="button" class="replay-button" disabled=${busy !== null} aria-label=${`Replay ${proposal(s)}`} onClick=${act(s, 'replay')}>Replay</button>
                    <button type="button" class="primary accept-button" disabled=${busy !== null} aria-label=${`Accept ${proposal(s)}`} onClick=${act(s, 'accept')}>Accept</button>
                    <button type="button" class="dismiss-button" disabled=${busy !== null} aria-label=${`Dismiss ${proposal(s)}`} onClick=${act(s, 'dismiss')}>Dismiss</button>`
                }</td>
              </tr>`,
            )}
          </tbody>
        </table>`
      }
    </section>
  `
}
