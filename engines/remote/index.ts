/**
 * remote engine: any OpenAI-compatible transcription server (OpenAI, Groq, speaches, LocalAI, whisper.cpp
 * server, another dictum) by `baseUrl`. The audio leaves this machine when `baseUrl` is not local: the display
 * name says where it goes. No native code, so it runs in the API process.
 */

import { defineEngine, type EngineContext, type EngineProbe } from '../../sdk/plugin.ts'
import { RemoteEngine } from './instance.ts'
import {
  keyEnvName,
  type RemoteOptions,
  RemoteOptionsSchema,
  resolveApiKey,
  responseFormatOf,
  sendsKeywords,
  serverName,
} from './options.ts'

/** Hosted services that refuse every request without a key: unavailable until one is configured. */
const KEY_REQUIRED_HOSTS = new Set(['api.openai.com', 'api.groq.com'])

async function probe(context: EngineContext<RemoteOptions>): Promise<EngineProbe> {
  const { options } = context
  let url: URL
  try {
    url = new URL(options.baseUrl)
  } catch {
    return {
      available: false,
      reason: `baseUrl ${options.baseUrl} is not a URL`,
      fix: 'Set speech.engines.remote.baseUrl.',
    }
  }
  if (KEY_REQUIRED_HOSTS.has(url.hostname) && !resolveApiKey(options)) {
    const env = keyEnvName(options)
    return {
      available: false,
      reason: `${url.host} needs an API key and none is configured`,
      fix: `Set speech.engines.remote.apiKey${env ? ` or the environment variable ${env}` : ''}.`,
    }
  }
  return { available: true }
}

export default defineEngine({
  id: 'remote',
  displayName: (options) => `Remote: ${options.model} at ${serverName(options)}`,
  description:
    'Uploads the audio to an OpenAI-compatible transcription server (OpenAI, Groq, another dictum…).',
  optionsSchema: RemoteOptionsSchema,
  capabilities: (options) => {
    const verbose = responseFormatOf(options) === 'verbose_json'
    return {
      customWords: sendsKeywords(options),
      translate: options.translate,
      wordTimestamps: verbose && options.wordTimestamps,
      segmentTimestamps: verbose,
      languages: options.language ? [options.language] : ['*'],
      maxAudioSeconds: options.maxAudioSeconds,
    }
  },
  isolation: 'none',
  probe,
  create: (context) => new RemoteEngine(context),
})
