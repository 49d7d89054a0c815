/**
 * Runs one job on this machine (the JobExecutor of jobs/types.ts): the audio from its input (a URL is fetched
 * into the spool first), the app's TranscriptionService with engine requests marked low priority (dictation
 * on this machine goes first), and each requested format written under `<resultsDir>/<job id>/`. Used by the
 * local backend and by `dictum worker`.
 */
import { mkdir, rename, rm, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import path from 'node:path'
import { openAudioInput } from '../audio/audio-input.ts'
import { parseWavHeader } from '../audio/wav-header.ts'
import type { DictionaryService } from '../dictionary/service.ts'
import type { ConfigStore } from '../kernel/config-store.ts'
import { redactUrl } from '../lib/http-client.ts'
import { DOCUMENT_EXTENSIONS, type DocumentFormat, formatDocument } from '../transcription/formats.ts'
import type { Transcript, TranscriptionService } from '../transcription/service.ts'
import { resultsDirOf, spoolDirOf } from './paths.ts'
import type { JobExecutor, JobRecord, JobResult, JobRunContext, JobRunner } from './types.ts'
import { downloadAudio } from './url-audio.ts'
import { UrlPolicy } from './url-policy.ts'

interface Deps {
  transcription: TranscriptionService
  dictionary: DictionaryService
  configStore: ConfigStore
}

export class TranscriptionExecutor implements JobExecutor {
  readonly #deps: Deps

  constructor(deps: Deps) {
    this.#deps = deps
  }

  async run(job: JobRecord, context: JobRunContext): Promise<JobResult> {
    const started = performance.now()
    const { file, downloaded } = await this.#audioFile(job, context.signal)
    try {
      const total = await wavSeconds(file)
      const transcript = await this.#deps.transcription.transcribe(
        { kind: 'file', path: file },
        {
          signal: context.signal,
          priority: 'low',
          ...(job.language ? { language: job.language } : {}),
          ...(job.prompt ? { prompt: job.prompt } : {}),
          ...(total
            ? {
                onPiece: (piece) =>
                  context.onProgress(Math.min(1, (piece.startSeconds + piece.seconds) / total)),
              }
            : {}),
        },
      )
      return await this.writeResult(job, transcript, started)
    } finally {
      if (downloaded) await rm(file, { force: true })
    }
  }

  /**
   * Writes each requested format of `transcript` under `<resultsDir>/<job id>/` and gives the job's result
   * (`started`: performance.now() when its run began). Also used by `dictum worker` for a fanned-out job,
   * whose transcript is joined from its parts: `workSeconds` is the work done before this run (its parts'
   * runs and its planning), counted in `processingSeconds` with this run's own time.
   */
  async writeResult(
    job: JobRecord,
    transcript: Transcript,
    started: number,
    workSeconds = 0,
  ): Promise<JobResult> {
    const resultsDir = resultsDirOf(this.#deps.configStore.current)
    await mkdir(path.join(resultsDir, job.id), { recursive: true })
    const stem = stemOf(job)
    const replace = (text: string) => this.#deps.dictionary.applyReplacements(text)
    const files: JobResult['files'] = {}
    for (const format of job.formats) {
      const file = path.join(job.id, `${stem}.${DOCUMENT_EXTENSIONS[format as DocumentFormat]}`)
      const target = path.join(resultsDir, file)
      const document = formatDocument(format, transcript, { replace, file: inputName(job), words: true })
      // Whole or not at all: a reader never sees half a file, a retry overwrites it.
      const partial = `${target}.partial-${process.pid}`
      await writeFile(partial, document)
      await rename(partial, target)
      files[format] = file
    }
    return {
      text: transcript.text,
      durationSeconds: transcript.durationSeconds,
      engine: transcript.engine,
      provider: transcript.provider,
      language: transcript.language,
      files,
      processingSeconds: Math.round(workSeconds * 1000 + performance.now() - started) / 1000,
    }
  }

  async #audioFile(job: JobRecord, signal: AbortSignal): Promise<{ file: string; downloaded: boolean }> {
    const { input } = job
    const config = this.#deps.configStore.current
    if (input.kind === 'path') return { file: input.path, downloaded: false }
    if (input.kind === 'upload')
      return { file: path.join(resultsDirOf(config), input.file), downloaded: false }
    const { jobs } = config
    const spool = spoolDirOf(config)
    await mkdir(spool, { recursive: true })
    const file = path.join(spool, `${job.id}.download${extensionOf(new URL(input.url).pathname)}`)
    await downloadAudio(input.url, file, {
      maxBytes: jobs.maxUrlBytes,
      timeoutMs: jobs.urlTimeoutMs,
      minBytesPerSecond: jobs.urlMinBytesPerSecond,
      rateWindowMs: jobs.urlRateWindowMs,
      policy: new UrlPolicy(jobs.urlAllow, jobs.urlDeny),
      signal,
    })
    return { file, downloaded: true }
  }
}

/** This process as a job runner (`worker`: "local" for the service, a worker's id for `dictum worker`). */
export function thisRunner(worker: string): JobRunner {
  return { host: hostname(), pid: process.pid, worker, engine: null }
}

/** Seconds of a PCM WAV file from its header (progress needs the length up front); null for other formats. */
export async function wavSeconds(file: string): Promise<number | null> {
  let input: Awaited<ReturnType<typeof openAudioInput>> | undefined
  try {
    input = await openAudioInput({ kind: 'file', path: file })
    const header = await parseWavHeader(input)
    return header.kind === 'pcm' ? header.layout.frames / header.layout.sampleRate : null
  } catch {
    return null // not a WAV (or unreadable: the transcription reports that with its own error)
  } finally {
    await input?.close()
  }
}

/** The name the client knows the audio by. */
function inputName(job: JobRecord): string {
  const { input } = job
  if (input.kind === 'path') return input.path
  if (input.kind === 'upload') return input.filename
  return redactUrl(input.url)
}

/** The result files' name: the audio's file name without its extension. */
function stemOf(job: JobRecord): string {
  const name = job.input.kind === 'url' ? new URL(job.input.url).pathname : inputName(job)
  const base = path.basename(name).replace(/\.[^.]*$/, '')
  // Names that could leave the folder or hide the file are replaced.
  return base === '' || base.startsWith('.') ? 'audio' : base.replace(/[\\/\0]/g, '_')
}

function extensionOf(pathname: string): string {
  const ext = path.extname(pathname)
  return /^\.[A-Za-z0-9]{1,8}$/.test(ext) ? ext : ''
}
