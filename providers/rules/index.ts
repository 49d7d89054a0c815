/**
 * The rules provider: local, instant, no model. Removes hesitation fillers, turns spoken punctuation and
 * layout commands into characters, tidies spacing and capitalises sentence starts and "I". It never
 * rewrites other words; see docs/providers.md for the exact rules.
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
      description: 'Turn spoken punctuation and layout ("comma", "period", "new line") into characters.',
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
        return { text: cleanDictation(request.text, settings), model: RULES_MODEL }
      },
      async close() {},
    }
  },
})
