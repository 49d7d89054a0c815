import t from 'tap'
import { errorBody, errorCatalogue, errors } from '../../errors/catalogue.ts'

t.test(
  'the catalogue: codes unique and upper snake case, statuses valid, messages are sentences',
  async (t) => {
    const codes = Object.keys(errorCatalogue)
    t.equal(new Set(codes).size, codes.length)
    for (const [code, entry] of Object.entries(errorCatalogue)) {
      t.match(code, /^[A-Z][A-Z0-9_]+$/, code)
      t.ok(entry.status >= 400 && entry.status <= 599, `${code} status ${entry.status}`)
      const message = typeof entry.message === 'string' ? entry.message : entry.message('detail.')
      t.match(message, /\.$/, `${code} message ends with a full stop`)
      const error = errors[code as keyof typeof errors]('detail.')
      t.equal(error.code, code)
      t.equal(error.statusCode, entry.status)
      t.same(Object.keys(errorBody(error)).sort(), ['code', 'error'])
    }
  },
)

t.test('messages the spec names are word for word', async (t) => {
  const exact: Record<string, [string, number]> = {
    MISSING_AUDIO: ['Missing audio path or audioBase64.', 400],
    MISSING_AUDIO_BODY: ['Missing audio body.', 400],
    INVALID_AUDIO_JSON: ['Invalid JSON audio payload.', 400],
    REQUEST_TOO_LARGE: ['Request too large.', 413],
    INVALID_TEXT_JSON: ['Invalid JSON text payload.', 400],
    TEXT_NOT_UTF8: ['Text body must be UTF-8.', 400],
    NO_AI_PROVIDER: ['No AI provider is configured.', 400],
    ROUTE_NOT_FOUND: ['Route not found.', 404],
    METHOD_NOT_ALLOWED: ['Method not allowed.', 405],
  }
  for (const [code, [message, status]] of Object.entries(exact)) {
    const error = errors[code as keyof typeof errors]()
    t.equal(error.message, message, code)
    t.equal(error.statusCode, status, code)
  }
  t.match(errors.AUDIO_DECODE_FAILED('bad header.').message, /^Could not decode audio: bad header\.$/)
})
