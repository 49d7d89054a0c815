/**
 * Throughput of the rules provider (characters of input per second) on realistic dictation: short utterances
 * as a dictation app sends them (one process() call each), and one long dictated document in a single call.
 * Figures are medians of rounds.
 */
import { tmpdir } from 'node:os'
import { performance } from 'node:perf_hooks'
import { Value } from '@sinclair/typebox/value'
import type { ProviderInstance } from '../kernel/contracts/provider.ts'
import rules, { type RulesOptions } from '../providers/rules/index.ts'

/** Utterances as speech engines deliver them: lower-case without punctuation, or punctuated by the engine. */
const UTTERANCES = [
  'hi john comma thanks for the update period i will review the numbers tomorrow morning period',
  'um so i was thinking we could uh move the meeting to thursday question mark',
  'dear team comma new line the release is ready period please test it before friday period',
  'Um, I think the trial period ends next week, so we should, uh, decide soon.',
  'the agenda colon budget comma hiring comma and travel new paragraph any questions question mark',
  'Hi Sarah, comma, can you send me the slides? Question mark. Thanks. Period.',
  'we launched a new line of shoes and the response was great exclamation mark',
  'he said open quote we are nearly done close quote and then he left period',
  'hmm let me check my calendar period i think i am free after three',
  'it was, you know, a really long day, and I mean, a really long week.',
  'please add a comma separated list of the attendees to the notes period',
  'first point new line second point new line third point new line that is all',
]

const quiet = { debug() {}, info() {}, warn() {}, error() {} }

export async function benchRules(rounds = 5, roundMs = 400): Promise<Record<string, number>> {
  const options = Value.Default(rules.optionsSchema, {}) as RulesOptions
  const instance = await rules.create({ options, dataDir: tmpdir(), logger: quiet })
  const document = Array.from({ length: 200 }, (_, i) => UTTERANCES[i % UTTERANCES.length]).join(' ')
  const short: number[] = []
  const long: number[] = []
  try {
    for (let round = 0; round < rounds; round++) {
      short.push(await charsPerSecond(instance, UTTERANCES, roundMs))
      long.push(await charsPerSecond(instance, [document], roundMs))
    }
  } finally {
    await instance.close?.()
  }
  const utteranceChars = UTTERANCES.reduce((sum, u) => sum + u.length, 0) / UTTERANCES.length
  return {
    [`rules chars/s (median, utterances of ~${Math.round(utteranceChars)} chars)`]: Math.round(median(short)),
    [`rules chars/s (median, one ${document.length}-char document)`]: Math.round(median(long)),
    'rules ms per utterance (median)': round3((utteranceChars / median(short)) * 1000),
  }
}

async function charsPerSecond(instance: ProviderInstance, texts: string[], roundMs: number): Promise<number> {
  const signal = new AbortController().signal
  let chars = 0
  const start = performance.now()
  let elapsed = 0
  while (elapsed < roundMs) {
    for (const text of texts) {
      await instance.process({ text }, signal)
      chars += text.length
    }
    elapsed = performance.now() - start
  }
  return (chars / elapsed) * 1000
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000
}
