/**
 * Writes a tiny but real Vosk model (v2 layout) for tests: Kaldi text-format acoustic model, a binary OpenFst
 * decoding graph, feature and decoder configs. It recognises one word, `hello`, wherever the signal is loud
 * and nothing where it is quiet: the "acoustic model" is one affine layer that scores the first cepstral
 * coefficient (log energy) for the word's phone and against it for the silence phone. It lets the tests drive
 * the whole libvosk path (model load, recognizer, waveform, results with times and confidences) without a
 * downloaded model; it says nothing about recognition quality.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'

/** MFCC dimension (Kaldi's default `--num-ceps`). */
const CEPS = 13
/** Energy level (c0) where the word and silence phones score the same. */
export const ENERGY_THRESHOLD = 80

/**
 * One HMM state per phone, with a self-loop and a forward transition. Phone 1 is the word, phone 2 silence;
 * transition-ids: 1 word self-loop, 2 word forward, 3 silence self-loop, 4 silence forward.
 */
function transitionModel(): string {
  return [
    '<TransitionModel> <Topology> <TopologyEntry> <ForPhones> 1 2 </ForPhones>',
    '<State> 0 <PdfClass> 0 <Transition> 0 0.5 <Transition> 1 0.5 </State> <State> 1 </State>',
    '</TopologyEntry> </Topology>',
    '<Triples> 2 1 0 0 2 0 1 </Triples>',
    '<LogProbs> [ 0 -0.6931472 -0.6931472 -0.6931472 -0.6931472 ] </LogProbs>',
    '</TransitionModel>',
  ].join('\n')
}

function matrix(rows: number[][]): string {
  return `[\n${rows.map((row) => `  ${row.join(' ')}`).join('\n')} ]`
}

/** pdf 0 (word) scores +c0, pdf 1 (silence) −c0, around the threshold. */
function acousticModel(): string {
  const word = Array.from({ length: CEPS }, (_, i) => (i === 0 ? 0.5 : 0))
  const silence = word.map((w) => -w)
  const bias = [-0.5 * ENERGY_THRESHOLD, 0.5 * ENERGY_THRESHOLD]
  return [
    '<Nnet3> ',
    `input-node name=input dim=${CEPS}`,
    'component-node name=affine component=affine input=input',
    'output-node name=output input=affine objective=linear',
    '',
    '<NumComponents> 1',
    `<ComponentName> affine <FixedAffineComponent> <LinearParams> ${matrix([word, silence])}`,
    `<BiasParams> [ ${bias.join(' ')} ]`,
    '</FixedAffineComponent>',
    '</Nnet3>',
    '<LeftContext> 0 <RightContext> 0 <Priors> [ ]',
    '',
  ].join('\n')
}

interface Arc {
  ilabel: number
  olabel: number
  weight: number
  next: number
}

/** A binary OpenFst `vector` FST of the standard (tropical float) arc type. */
function vectorFst(states: { final: number; arcs: Arc[] }[]): Buffer {
  const parts: Buffer[] = []
  const int32 = (v: number) => {
    const b = Buffer.alloc(4)
    b.writeInt32LE(v)
    parts.push(b)
  }
  const int64 = (v: number) => {
    const b = Buffer.alloc(8)
    b.writeBigInt64LE(BigInt(v))
    parts.push(b)
  }
  const float = (v: number) => {
    const b = Buffer.alloc(4)
    b.writeFloatLE(v)
    parts.push(b)
  }
  const string = (s: string) => {
    int32(s.length)
    parts.push(Buffer.from(s, 'latin1'))
  }
  int32(2125659606)
  string('vector')
  string('standard')
  int32(2)
  int32(0)
  int64(0x3) // kExpanded | kMutable; every other property unknown
  int64(0)
  int64(states.length)
  int64(states.reduce((n, s) => n + s.arcs.length, 0))
  for (const state of states) {
    float(state.final)
    int64(state.arcs.length)
    for (const arc of state.arcs) {
      int32(arc.ilabel)
      int32(arc.olabel)
      float(arc.weight)
      int32(arc.next)
    }
  }
  return Buffer.concat(parts)
}

/**
 * Phone sequences as Kaldi's (reordered) HMMs make them: a phone of n frames is its forward transition then
 * n−1 self-loops. State 0 is the start, 1 inside the word (whose first frame emits `hello`), 2 inside
 * silence; all are final.
 */
function graph(): Buffer {
  const enterWord = { ilabel: 2, olabel: 1, weight: 2, next: 1 }
  const enterSilence = { ilabel: 4, olabel: 0, weight: 0.1, next: 2 }
  return vectorFst([
    { final: 0, arcs: [enterWord, enterSilence] },
    { final: 0, arcs: [{ ilabel: 1, olabel: 0, weight: 0.1, next: 1 }, enterWord, enterSilence] },
    { final: 0, arcs: [{ ilabel: 3, olabel: 0, weight: 0.1, next: 2 }, enterWord, enterSilence] },
  ])
}

const FILES: Record<string, string | (() => Buffer)> = {
  'am/final.mdl': `${transitionModel()}\n${acousticModel()}`,
  'conf/mfcc.conf': '--sample-frequency=16000\n--use-energy=false\n--dither=0\n',
  'conf/model.conf': [
    '--min-active=20',
    '--max-active=200',
    '--beam=10.0',
    '--lattice-beam=2.0',
    '--acoustic-scale=1.0',
    '--frame-subsampling-factor=3',
    '--endpoint.silence-phones=2',
    '',
  ].join('\n'),
  'graph/HCLG.fst': graph,
  'graph/words.txt': '<eps> 0\nhello 1\n',
  'graph/phones/word_boundary.int': '1 singleton\n2 nonword\n',
}

/** Writes the fixture model into `dir` (created) and returns it. */
export async function writeFixtureVoskModel(dir: string): Promise<string> {
  for (const [file, content] of Object.entries(FILES)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true })
    await writeFile(path.join(dir, file), typeof content === 'function' ? content() : content)
  }
  return dir
}
