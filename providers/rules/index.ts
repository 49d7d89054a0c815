/**
 * The rules provider: local, instant, no model. Removes hesitation fillers, carries out spoken punctuation,
 * layout and editing commands (dictum's editing stage, text/commands.ts, through the SDK), tidies
 * spacing and capitalises sentence starts and "I". It never rewrites other words; see docs/providers.md.
 */
import { type Static, Type } from '@sinclair/typebox'
import { defineProvider } from '../../sdk/plugin.ts'
import { abortError } from '../common/abort.ts'
import { type CleanSettings, cleanDictation, fillerPhrase } from './clean-text.ts'

const optionsSchema = Type.Object(
  {
    fillers: Type.Boolean({
      default: true,
      description: 'Remove hesitation fillers (um, uh, er, erm, ah, hmm).',
    }),
    punctuation: Type.Boolean({
      default: true,
      description:
        'Carry out spoken punctuation, layout and editing commands ("comma", "period", "new line", "scratch that"): dictum\'s editing stage (docs/desktop.md). Skipped on text the dictation stage already edited (dictation.commands).',
    }),
    capitalize: Type.Boolean({
      default: true,
      description: 'Capitalise sentence starts and the pronoun "I".',
    }),
    extraFillers: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description: 'More filler words or phrases, removed wherever they occur as whole words.',
    }),
  },
  { additionalProperties: false },
)

export type RulesOptions = Static<typeof optionsSchema>

export const RULES_MODEL = 'rules'

export default defineProvider({
  id: 'rules',
  displayName: 'Rules',
  description: 'Local clean-up without a model: fillers, spoken punctuation, spacing, capitals.',
  optionsSchema,
  capabilities: () => ({ local: true, usesPrompt: false }),
  defaultModel: () => RULES_MODEL,
  create: ({ options }) => {
    const settings: CleanSettings = {
      fillers: options.fillers,
      punctuation: options.punctuation,
      capitalize: options.capitalize,
      extraFillers: options.extraFillers.map(fillerPhrase).filter((words) => words.length > 0),
    }
    return {
      async process(request, signal) {
        if (signal.aborted) throw abortError('rules', signal)
        // On a dictation whose commands dictum already carried out, doing them again would undo "literally".
        const wanted = request.commandsApplied ? { ...settings, punctuation: false } : settings
        return { text: cleanDictation(request.text, wanted), model: RULES_MODEL }
      },
      async close() {},
    }
  },
})
