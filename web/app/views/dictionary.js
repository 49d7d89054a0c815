/**
 * Dictionary: replacement rules and custom words. Each list is read from the API, entries are added (POST),
 * edited (PATCH by id) and deleted (DELETE by id); the API validates, and its message is shown next to the
 * field it names. Import reads a JSON file (this page's export, or a list of entries) and appends it; export
 * downloads both lists as one JSON file. Above them, the suggestions learned from corrections (suggestions.js).
 */
import { useEffect, useState } from 'preact/hooks'
import { api, saveBlob } from '../lib/api.js'
import { html } from '../lib/html.js'
import { Suggestions } from './suggestions.js'

/** A comma-separated input as a list, and back. */
const toList = (value) =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
const fromList = (list) => (list ?? []).join(', ')

const KINDS = {
  rules: {
    path: '/v1/dictionary/replacements',
    title: 'Replacement rules',
    intro: 'Spoken phrases replaced by the text you want, in every transcript.',
    noun: 'rule',
    fields: [
      { name: 'triggers', label: 'Spoken phrases', hint: 'Comma-separated, e.g. open ai, open a i' },
      { name: 'replacement', label: 'Written as', hint: 'The text that replaces them, e.g. OpenAI' },
    ],
    toInputs: (e) => ({ triggers: fromList(e.triggers), replacement: e.replacement }),
    toBody: (v) => ({ triggers: toList(v.triggers), replacement: v.replacement }),
    cells: (e) => [fromList(e.triggers), e.replacement],
  },
  words: {
    path: '/v1/dictionary/custom-words',
    title: 'Custom words',
    intro: 'Words the engine should expect (names, jargon), on engines that take them.',
    noun: 'word',
    fields: [
      { name: 'text', label: 'Word or phrase', hint: 'As it should be written, e.g. Kubernetes' },
      {
        name: 'weight',
        label: 'Weight',
        type: 'number',
        hint: 'Above 0, at most 100; empty: the engine default',
      },
      { name: 'aliases', label: 'Spoken forms', hint: 'Comma-separated, e.g. cube er net ease' },
    ],
    toInputs: (e) => ({
      text: e.text,
      weight: e.weight === null ? '' : String(e.weight),
      aliases: fromList(e.aliases),
    }),
    toBody: (v) => {
      const weight = v.weight.trim()
      // Sent as typed when it is no number, so the API's own message says what is wrong.
      const number = Number(weight)
      return {
        text: v.text,
        weight: weight === '' ? null : Number.isFinite(number) ? number : weight,
        aliases: toList(v.aliases),
      }
    },
    cells: (e) => [e.text, e.weight === null ? 'default' : String(e.weight), fromList(e.aliases)],
  },
}

/** The field an API message names (`the entry.replacement must…`, `entries[0].weight…`), if any. */
function fieldOf(message, fields) {
  return fields.find((f) => new RegExp(`[."/]${f.name}\\b`).test(message))?.name ?? null
}

/** Inputs of one entry, each with the API's message next to it when the API refused it. */
function EntryForm({ kind, idPrefix, initial, submitLabel, onSubmit, onCancel }) {
  const [values, setValues] = useState(initial)
  const [error, setError] = useState(null)
  const [busy, setBusy] = useState(false)
  const field = error ? fieldOf(error, kind.fields) : null

  const submit = async (e) => {
    e.preventDefault()
    setBusy(true)
    setError(null)
    try {
      await onSubmit(kind.toBody(values))
      if (!onCancel) setValues(Object.fromEntries(kind.fields.map((f) => [f.name, ''])))
    } catch (err) {
      setError(err.message)
    } finally {
      setBusy(false)
    }
  }

  return html`
    <form class="entry-form" onSubmit=${submit} aria-label=${`${submitLabel} ${kind.noun}`}>
      <div class="row">
        ${kind.fields.map((f) => {
          const id = `${idPrefix}-${f.name}`
          const wrong = field === f.name
          return html`<div class="field" key=${f.name}>
            <label for=${id}>${f.label}</label>
            <input id=${id} name=${f.name} type=${f.type === 'number' ? 'number' : 'text'} step=${f.type === 'number' ? 'any' : undefined}
              value=${values[f.name]} aria-invalid=${wrong ? 'true' : undefined}
              aria-describedby=${wrong ? `${id}-error` : `${id}-hint`}
              onInput=${(e) => setValues((v) => ({ ...v, [f.name]: e.currentTarget.value }))} />
            ${wrong ? html`<p id=${`${id}-error`} class="error field-error" role="alert">${error}</p>` : html`<p id=${`${id}-hint`} class="hint">${f.hint}</p>`}
          </div>`
        })}
      </div>
      ${error && !field && html`<p class="error form-error" role="alert">${error}</p>`}
      <div class="actions">
        <button class="primary" type="submit" disabled=${busy}>${submitLabel}</button>
        ${onCancel && html`<button type="button" onClick=${onCancel}>Cancel</button>`}
      </div>
    </form>
  `
}

function EntryList({ kindName, reloadKey, onStatus }) {
  const kind = KINDS[kindName]
  const [items, setItems] = useState(null)
  const [editing, setEditing] = useState(null)
  const [error, setError] = useState(null)

  useEffect(() => {
    api(kind.path)
      .then((list) => setItems(list.items))
      .catch((err) => setError(err.message))
  }, [reloadKey])

  const add = async (body) => {
    const list = await api(kind.path, { method: 'POST', json: body })
    setItems(list.items)
    onStatus(`${kind.noun[0].toUpperCase()}${kind.noun.slice(1)} added.`)
  }
  const save = (id) => async (body) => {
    const list = await api(`${kind.path}/${id}`, { method: 'PATCH', json: body })
    setItems(list.items)
    setEditing(null)
    onStatus(`${kind.noun[0].toUpperCase()}${kind.noun.slice(1)} saved.`)
  }
  const remove = async (id) => {
    try {
      const list = await api(`${kind.path}/${id}`, { method: 'DELETE' })
      setItems(list.items)
      onStatus(`${kind.noun[0].toUpperCase()}${kind.noun.slice(1)} deleted.`)
    } catch (err) {
      setError(err.message)
    }
  }

  const headingId = `${kindName}-heading`
  const headers = kind.fields.map((f) => f.label)
  return html`
    <section class="panel" aria-labelledby=${headingId} id=${`dictionary-${kindName}`}>
      <h2 id=${headingId}>${kind.title}</h2>
      <p class="muted">${kind.intro}</p>
      <h3>Add a ${kind.noun}</h3>
      <${EntryForm} kind=${kind} idPrefix=${`add-${kindName}`} initial=${Object.fromEntries(kind.fields.map((f) => [f.name, '']))}
        submitLabel="Add" onSubmit=${add} />
      ${error && html`<p class="error" role="alert">${error}</p>`}
      ${items === null && !error && html`<p class="muted">Loading…</p>`}
      ${items?.length === 0 && html`<p class="muted">No ${kind.noun}s yet.</p>`}
      ${
        items?.length > 0 &&
        html`<table>
          <caption class="visually-hidden">${kind.title}</caption>
          <thead><tr>${headers.map((h) => html`<th scope="col" key=${h}>${h}</th>`)}<th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
          <tbody>
            ${items.map((entry) =>
              editing === entry.id
                ? html`<tr key=${entry.id} data-id=${entry.id}><td colspan=${headers.length + 1}>
                    <${EntryForm} kind=${kind} idPrefix=${`edit-${kindName}`} initial=${kind.toInputs(entry)} submitLabel="Save"
                      onSubmit=${save(entry.id)} onCancel=${() => setEditing(null)} />
                  </td></tr>`
                : html`<tr key=${entry.id} data-id=${entry.id}>
                    ${kind.cells(entry).map((c, i) => html`<td key=${i}>${c}</td>`)}
                    <td class="actions">
                      <button type="button" aria-label=${`Edit ${kind.noun} ${kind.cells(entry)[0]}`} onClick=${() => setEditing(entry.id)}>Edit</button>
                      <button type="button" aria-label=${`Delete ${kind.noun} ${kind.cells(entry)[0]}`} onClick=${() => remove(entry.id)}>Delete</button>
                    </td>
                  </tr>`,
            )}
          </tbody>
        </table>`
      }
    </section>
  `
}

/** Entries of an imported file: this page's export, an API list envelope, or a bare array. */
function entriesOf(value) {
  if (Array.isArray(value)) return value
  if (Array.isArray(value?.items)) return value.items
  return []
}

export function Dictionary() {
  const [status, setStatus] = useState('')
  const [error, setError] = useState(null)
  const [reloadKey, setReloadKey] = useState(0)

  const exportAll = async () => {
    try {
      const [rules, words] = await Promise.all([api(KINDS.rules.path), api(KINDS.words.path)])
      const file = { replacements: rules.items, customWords: words.items }
      saveBlob(
        new Blob([JSON.stringify(file, null, 2)], { type: 'application/json' }),
        'dictum-dictionary.json',
      )
      setStatus(`Exported ${rules.count} rules and ${words.count} custom words.`)
    } catch (err) {
      setError(err.message)
    }
  }

  const importFile = async (file) => {
    setError(null)
    try {
      let data
      try {
        data = JSON.parse(await file.text())
      } catch {
        throw new Error(`${file.name} is not JSON.`)
      }
      const rules = entriesOf(data.replacements ?? (data.customWords ? [] : data))
      const words = entriesOf(data.customWords)
      if (rules.length === 0 && words.length === 0)
        throw new Error(`${file.name} has no rules or custom words.`)
      if (rules.length > 0)
        await api(KINDS.rules.path, { method: 'POST', json: { mode: 'append', entries: rules } })
      if (words.length > 0)
        await api(KINDS.words.path, { method: 'POST', json: { mode: 'append', entries: words } })
      setStatus(`Imported ${rules.length} rules and ${words.length} custom words from ${file.name}.`)
      setReloadKey((k) => k + 1)
    } catch (err) {
      setError(`Import failed: ${err.message}`)
    }
  }

  return html`
    <h1>Dictionary</h1>
    <p role="status" class="ok" id="dictionary-status">${status}</p>
    <${Suggestions} reloadKey=${reloadKey} onStatus=${setStatus} onAccepted=${() => setReloadKey((k) => k + 1)} />
    <${EntryList} kindName="rules" reloadKey=${reloadKey} onStatus=${setStatus} />
    <${EntryList} kindName="words" reloadKey=${reloadKey} onStatus=${setStatus} />
    <section class="panel" aria-labelledby="io-heading">
      <h2 id="io-heading">Import and export</h2>
      <div class="row">
        <div class="field">
          <label for="dictionary-import">Import a JSON file</label>
          <input id="dictionary-import" type="file" accept=".json,application/json" aria-describedby="import-hint"
            onChange=${(e) => {
              const file = e.currentTarget.files?.[0]
              e.currentTarget.value = ''
              if (file) importFile(file)
            }} />
          <p id="import-hint" class="hint">An export of this page, or a list of entries; added to what is there (same ids or texts are updated).</p>
        </div>
        <div class="field">
          <button type="button" onClick=${exportAll}>Export as JSON</button>
        </div>
      </div>
      ${error && html`<p class="error" role="alert">${error}</p>`}
    </section>
  `
}
