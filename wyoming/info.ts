/**
 * The `info` answer to `describe`: one speech-to-text program, dictum, whose models are its engines (by
 * engine id) and the installed catalog speech models (by catalog id): the names a `transcribe` event may
 * give, as the OpenAI route's `model` takes them.
 */
import type { EngineRegistry } from '../kernel/registry.ts'
import type { ModelManager } from '../models/manager.ts'

/** The protocol requires a URL; dictum runs here and names no web address of its own. */
const ATTRIBUTION = { name: 'dictum', url: '' }

/**
 * What an engine that transcribes any language (`languages: ['*']`) is said to take: Wyoming clients list
 * languages, they do not take a wildcard (Home Assistant offers the model for the languages it names).
 */
// biome-ignore format: a list of codes
const ANY_LANGUAGE = [
  'ar', 'ca', 'cs', 'da', 'de', 'el', 'en', 'es', 'fa', 'fi', 'fr', 'he', 'hi', 'hu', 'id', 'it', 'ja',
  'ko', 'nl', 'no', 'pl', 'pt', 'ro', 'ru', 'sk', 'sv', 'th', 'tr', 'uk', 'vi', 'zh',
]

function languages(list: readonly string[]): string[] {
  return list.includes('*') ? [...ANY_LANGUAGE] : [...list]
}

export async function describeInfo(
  engines: EngineRegistry,
  models: ModelManager,
  version: string,
): Promise<Record<string, unknown>> {
  const asrModels: Record<string, unknown>[] = []
  for (const engine of await engines.list()) {
    asrModels.push({
      name: engine.id,
      description: engine.description || engine.displayName,
      attribution: ATTRIBUTION,
      installed: engine.status !== 'unavailable',
      version: null,
      languages: languages(engine.capabilities.languages),
    })
  }
  for (const item of await models.list()) {
    if (!item.installed || !engines.ids().includes(item.entry.engine)) continue
    asrModels.push({
      name: item.entry.id,
      description: `${item.entry.displayName} (${item.entry.engine})`,
      attribution: ATTRIBUTION,
      installed: true,
      version: null,
      languages: languages(item.entry.languages),
    })
  }
  return {
    asr: [
      {
        name: 'dictum',
        description: 'dictum: local dictation with your dictionary applied',
        attribution: ATTRIBUTION,
        installed: true,
        version,
        models: asrModels,
        supports_transcript_streaming: true,
        // dictum ends an utterance at audio-stop: the client (Home Assistant's VAD) finds the end of speech.
        requires_external_vad: true,
      },
    ],
  }
}
