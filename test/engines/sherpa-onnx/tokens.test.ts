import t from 'tap'
import {
  checkBpeVocab,
  deriveBpeVocab,
  parseTokens,
  TokenFileError,
} from '../../../engines/sherpa-onnx/tokens.ts'

t.test('tokens.txt: symbols by id, characters, letter case', async (t) => {
  const table = parseTokens('<blk> 2\n\u2581hi 0\nX 1\n')
  t.same(table.symbols, ['\u2581hi', 'X', '<blk>'])
  t.same([...table.characters].sort(), ['X', 'h', 'i'])
  t.equal(table.letterCase, 'mixed')
  t.equal(parseTokens('\u2581A 0\nB 1').letterCase, 'upper')
  t.throws(() => parseTokens('a 0\nb 0\n'), TokenFileError, 'duplicate id')
  t.throws(() => parseTokens('a\n'), TokenFileError, 'no id')
  t.throws(() => parseTokens(''), TokenFileError, 'empty')
})

t.test('derived bpe.vocab: every ordinary piece once, one score, no specials, no blank lines', async (t) => {
  const table = parseTokens('<unk> 0\n\u2581the 1\ns 2\n<blk> 3\n')
  const vocab = deriveBpeVocab(table)
  t.equal(vocab, '\u2581the\t-1.0\ns\t-1.0\n')
  t.equal(checkBpeVocab(vocab, table), null)
})

t.test('a bpe.vocab is only accepted when every line is "piece score" with a known piece', async (t) => {
  const table = parseTokens('\u2581a 0\nb 1\n')
  t.equal(checkBpeVocab('\u2581a -1\nb -2.5\n', table), null)
  t.match(checkBpeVocab('\u2581a -1\n\nb 0\n', table), /line 2/)
  t.match(checkBpeVocab('\u2581a abc\n', table), /line 1/)
  t.match(checkBpeVocab('zz 0\n', table), /not in tokens\.txt/)
  t.match(checkBpeVocab('', table), /empty/)
})
