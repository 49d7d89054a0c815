/**
 * Files: drop or pick audio files (any format dictum decodes); each one becomes a transcription job
 * (POST /v1/jobs, so long files run in the background with progress events), then shows its transcript with
 * segment times and offers the result files (txt, srt, vtt, json) from GET /v1/jobs/{id}/result/{format}.
 */
import { useState } from 'preact/hooks'
import { api, download, events, request, upload } from '../lib/api.js'
import { bytes, clock } from '../lib/format.js'
import { html } from '../lib/html.js'

const FORMATS = ['text', 'srt', 'vtt', 'json', 'verbose_json']
const DOWNLOADS = [
  { format: 'text', label: 'Text (.txt)' },
  { format: 'srt', label: 'Subtitles (.srt)' },
  { format: 'vtt', label: 'WebVTT (.vtt)' },
  { format: 'json', label: 'JSON (.json)' },
]
const FINAL = new Set(['completed', 'failed', 'cancelled'])

/** Follows a job's events until it ends; calls `onJob` with each state of it. */
async function follow(id, onJob) {
  const response = await request(`/v1/jobs/${id}/events`, { headers: { accept: 'text/event-stream' } })
  for await (const { data } of events(response)) {
    onJob(data)
    if (FINAL.has(data.state)) return data
  }
  return api(`/v1/jobs/${id}`)
}

function FileCard({ entry, onCancel }) {
  const { file, phase, uploaded, job, result, error } = entry
  const progress = phase === 'uploading' ? uploaded : (job?.progress ?? 0)
  const headingId = `file-${entry.key}`
  const stem = file.name.replace(/\.[^.]+$/, '') || 'transcript'
  return html`
    <section class="panel" aria-labelledby=${headingId} data-phase=${phase}>
      <h2 id=${headingId}>${file.name} <span class="muted">(${bytes(file.size)})</span></h2>
      ${
        phase !== 'done' &&
        phase !== 'failed' &&
        html`<label for=${`${headingId}-progress`}>${phase === 'uploading' ? 'Uploading' : `Transcribing (${job?.state ?? 'queued'})`}</label>
          <progress id=${`${headingId}-progress`} max="1" value=${progress}>${Math.round(progress * 100)}%</progress>
          <div class="actions">
            ${job && html`<button type="button" onClick=${() => onCancel(job.id)}>Cancel</button>`}
          </div>`
      }
      ${error && html`<p class="error" role="alert">${error}</p>`}
      ${
        result &&
        html`<p class="muted">
            ${result.engine ? `Engine: ${result.engine}` : ''}${result.durationSeconds ? ` · ${clock(result.durationSeconds)} of audio` : ''}
          </p>
          <h3>Transcript</h3>
          <p class="text-out transcript">${result.text || html`<span class="muted">(no speech)</span>`}</p>
          ${
            result.segments?.length > 0 &&
            html`<table>
              <caption class="visually-hidden">Segments of ${file.name}</caption>
              <thead><tr><th scope="col">Start</th><th scope="col">End</th><th scope="col">Text</th></tr></thead>
              <tbody>
                ${result.segments.map(
                  (s, i) =>
                    html`<tr key=${i}><td>${clock(s.start)}</td><td>${clock(s.end)}</td><td>${s.text}</td></tr>`,
                )}
              </tbody>
            </table>`
          }
          <h3>Download</h3>
          <div class="actions">
            ${DOWNLOADS.map(
              (d) => html`<button key=${d.format} type="button"
                onClick=${() => download(`/v1/jobs/${job.id}/result/${d.format}`, `${stem}.${d.format === 'text' ? 'txt' : d.format}`)}>
                ${d.label}</button>`,
            )}
          </div>`
      }
    </section>
  `
}

let nextKey = 1

export function Files() {
  const [entries, setEntries] = useState([])
  const [over, setOver] = useState(false)

  const update = (key, change) =>
    setEntries((list) => list.map((e) => (e.key === key ? { ...e, ...change } : e)))

  const run = async (file) => {
    const key = nextKey++
    setEntries((list) => [{ key, file, phase: 'uploading', uploaded: 0 }, ...list])
    try {
      const form = new FormData()
      form.append('formats', FORMATS.join(','))
      form.append('file', file, file.name)
      const job = await upload('/v1/jobs', form, (fraction) => update(key, { uploaded: fraction }))
      update(key, { phase: 'transcribing', job })
      const end = await follow(job.id, (j) => update(key, { job: j }))
      if (end.state !== 'completed') {
        update(key, { phase: 'failed', job: end, error: end.error?.message ?? `The job was ${end.state}.` })
        return
      }
      const result = await api(`/v1/jobs/${end.id}/result/verbose_json`)
      update(key, {
        phase: 'done',
        job: end,
        result: {
          ...result,
          engine: end.result?.engine,
          durationSeconds: result.duration ?? end.result?.durationSeconds,
        },
      })
    } catch (err) {
      update(key, { phase: 'failed', error: err.message })
    }
  }

  const take = (files) => {
    for (const file of files) run(file)
  }
  const cancel = (id) => request(`/v1/jobs/${id}`, { method: 'DELETE' }).catch(() => {})

  return html`
    <h1>Files</h1>
    <div class=${`drop${over ? ' over' : ''}`}
      onDragOver=${(e) => {
        e.preventDefault()
        setOver(true)
      }}
      onDragLeave=${() => setOver(false)}
      onDrop=${(e) => {
        e.preventDefault()
        setOver(false)
        take([...e.dataTransfer.files])
      }}>
      <label for="file-input">Audio or video files</label>
      <input id="file-input" type="file" multiple aria-describedby="file-hint"
        accept="audio/*,video/*,.wav,.mp3,.m4a,.ogg,.opus,.flac,.webm,.mp4,.aac,.caf,.aiff"
        onChange=${(e) => {
          take([...e.currentTarget.files])
          e.currentTarget.value = ''
        }} />
      <p id="file-hint" class="hint">Drop files here or choose them: WAV, MP3, M4A, OGG, FLAC, WebM… up to 25 MB each.
        Each runs as a transcription job, with its progress.</p>
    </div>
    <div aria-live="polite">
      ${entries.map((entry) => html`<${FileCard} key=${entry.key} entry=${entry} onCancel=${cancel} />`)}
    </div>
  `
}
