import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import t from 'tap'
import { sherpaEntryProblems } from '../../engines/sherpa-onnx/catalog.ts'
import { voskEntryProblems } from '../../engines/vosk/catalog.ts'
import { type CatalogEntry, catalogProblems, isSafeRelativePath } from '../../kernel/contracts/catalog.ts'
import { discoverPlugins } from '../../kernel/discovery.ts'
import { archiveFileName, findEntry, modelCatalog } from '../../models/catalog.ts'
import { vadEntryProblems } from '../../vad/catalog.ts'
import { vadModelPath } from '../helpers/fixtures.ts'

/** Hosts the built-in catalog downloads from (a mirror or `--from` may point anywhere). */
const OFFICIAL_HOSTS: readonly string[] = ['github.com', 'alphacephei.com']

/** The check of each owner's own hints; an engine that ships catalog models adds its check here. */
const OWN_CHECKS: Record<string, (entry: CatalogEntry) => string[]> = {
  'sherpa-onnx': sherpaEntryProblems,
  vosk: voskEntryProblems,
  vad: vadEntryProblems,
}

/** Every problem of a catalog: the contract's checks, then each entry's owner's. */
function problemsOf(catalog: readonly CatalogEntry[]): string[] {
  const own = catalog.flatMap((entry) => {
    const check = OWN_CHECKS[entry.engine]
    const problems = check ? check(entry) : [`no check for the hints of engine ${entry.engine}`]
    return problems.map((problem) => `${entry.id}: ${problem}`)
  })
  return [...catalogProblems(catalog), ...own]
}

// The built-in catalog as the model manager gets it: every built-in engine's entries and the VAD's.
const defaultCatalog = modelCatalog((await discoverPlugins({ plugins: [] })).engines.values())

t.test('the built-in catalog is well-formed', async (t) => {
  t.same(problemsOf(defaultCatalog), [])
  t.same([...new Set(defaultCatalog.map((entry) => entry.engine))].sort(), ['sherpa-onnx', 'vad', 'vosk'])
  const ids = defaultCatalog.map((entry) => entry.id)
  t.equal(new Set(ids).size, ids.length, 'ids are unique')
  for (const entry of defaultCatalog) {
    const url = new URL(entry.url)
    t.equal(url.protocol, 'https:', `${entry.id} downloads over https`)
    t.ok(
      OFFICIAL_HOSTS.includes(url.hostname),
      `${entry.id} downloads from an official host (${url.hostname})`,
    )
    t.ok(entry.files.length > 0, `${entry.id} lists its files`)
    t.ok(entry.checksumSource.length > 0, `${entry.id} says where its checksum comes from`)
    t.ok(archiveFileName(entry).endsWith(entry.archive === 'onnx' ? '.onnx' : `.${entry.archive}`))
  }
})

t.test('the catalog has every model the project needs', async (t) => {
  const required = [
    'parakeet-tdt-0.6b-v2',
    'parakeet-tdt-0.6b-v3',
    'parakeet-tdt-ctc-110m-en',
    'whisper-tiny.en',
    'whisper-base.en',
    'whisper-small.en',
    'whisper-tiny',
    'whisper-base',
    'whisper-small',
    'moonshine-tiny-en',
    'moonshine-base-en',
    'sense-voice-small',
    'zipformer-small-en',
    'streaming-zipformer-en',
    'streaming-zipformer-small-zh-en',
    'silero-vad',
    'vosk-model-small-en-us-0.15',
    'vosk-model-en-us-0.22',
  ]
  for (const id of required) t.equal(findEntry(defaultCatalog, id).id, id)
  const sherpa = defaultCatalog.filter((entry) => entry.engine === 'sherpa-onnx')
  for (const entry of sherpa) {
    t.match(
      entry.url,
      /^https:\/\/github\.com\/k2-fsa\/sherpa-onnx\/releases\/download\/asr-models\/.+\.tar\.bz2$/,
    )
  }
  t.equal(
    findEntry(defaultCatalog, 'silero-vad').url,
    'https://github.com/k2-fsa/sherpa-onnx/releases/download/asr-models/silero_vad.onnx',
  )
})

t.test('custom words are claimed only by transducers (the models sherpa-onnx can bias)', async (t) => {
  const boosting = defaultCatalog.filter((entry) => entry.customWords).map((entry) => entry.family)
  t.ok(boosting.length > 0)
  t.ok(boosting.every((family) => family === 'nemo-transducer' || family === 'zipformer-transducer'))
})

t.test('the Silero VAD model dictum ships is the catalog entry silero-vad-v6.2, byte for byte', async (t) => {
  const bytes = readFileSync(vadModelPath)
  const entry = findEntry(defaultCatalog, 'silero-vad-v6.2')
  t.equal(bytes.length, entry.sizeBytes)
  t.equal(createHash('sha256').update(bytes).digest('hex'), entry.sha256)
  t.not(findEntry(defaultCatalog, 'silero-vad').sha256, entry.sha256, 'not the sherpa-onnx export')
})

t.test('the well-formedness check catches broken entries', async (t) => {
  const good = findEntry(defaultCatalog, 'whisper-tiny.en')
  const broken: CatalogEntry[] = [
    good,
    { ...good },
    { ...good, id: 'Bad Id', url: 'http://example.com/x.tar.bz2', sha256: 'xyz', files: [] },
    { ...good, id: 'b', files: ['../escape'], family: 'vosk' },
    { ...good, id: 'c', hints: { ...(good.hints as object), tokens: 'absent.txt' } },
  ]
  const problems = problemsOf(broken).join('\n')
  t.match(problems, /duplicate id whisper-tiny\.en/)
  t.match(problems, /Bad Id: id must match/)
  t.match(problems, /url must be https/)
  t.match(problems, /sha256 must be 64 hex digits/)
  t.match(problems, /files must not be empty/)
  t.match(problems, /unsafe file path \.\.\/escape/)
  t.match(problems, /family vosk is not sherpa-onnx/)
  t.match(problems, /hint file absent\.txt is not in files/)
  const local = { ...good, id: 'local', url: 'http://127.0.0.1:8080/x.tar.bz2' }
  t.same(problemsOf([local]), [], 'http is fine on a loopback host (a plugin serving its models locally)')
  const vosk = findEntry(defaultCatalog, 'vosk-model-small-en-us-0.15')
  t.match(
    problemsOf([{ ...vosk, hints: { graph: 'HCLG' } }]).join('\n'),
    /graph file graph\/HCLG\.fst is not in files/,
  )
})

t.test('findEntry and isSafeRelativePath', async (t) => {
  t.throws(() => findEntry(defaultCatalog, 'missing'), {
    code: 'MODEL_NOT_FOUND',
    message: /Model not found: missing/,
  })
  t.ok(isSafeRelativePath('graph/HCLG.fst'))
  t.notOk(isSafeRelativePath('/etc/passwd'))
  t.notOk(isSafeRelativePath('a/../../b'))
  t.notOk(isSafeRelativePath(''))
})
