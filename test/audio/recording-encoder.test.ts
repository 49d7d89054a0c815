/**
 * The FLAC kept with a history entry (audio/recording-encoder.ts, real ffmpeg): lossless for 16-bit samples,
 * and its header says how many samples it holds (ffmpeg on a pipe leaves it 0, "unknown": a browser then
 * shows an endless recording it cannot seek).
 */
import { execFileSync } from 'node:child_process'
import t from 'tap'
import { RecordingEncoder, withTotalSamples } from '../../audio/recording-encoder.ts'

/** `seconds` of a tone at 16 kHz, on the 16-bit grid (so FLAC's s16 gives it back exactly). */
function tone(seconds: number): Float32Array {
  const samples = new Float32Array(Math.round(16000 * seconds))
  for (let i = 0; i < samples.length; i++) samples[i] = Math.round(8000 * Math.sin(i / 9)) / 32768
  return samples
}

t.test('the FLAC holds the samples and says how many', async (t) => {
  const samples = tone(1.5)
  const recording = new RecordingEncoder('ffmpeg')
  // Written in pieces, as a dictation's decoder hands them over.
  for (let at = 0; at < samples.length; at += 4000) recording.write(samples.subarray(at, at + 4000))
  const flac = await recording.finish()
  const probed = execFileSync(
    'ffprobe',
    ['-v', 'error', '-show_entries', 'stream=duration_ts,sample_rate', '-of', 'json', '-'],
    { input: flac },
  ).toString()
  const stream = JSON.parse(probed).streams[0]
  t.equal(Number(stream.duration_ts), samples.length, 'the header counts every sample')
  t.equal(stream.sample_rate, '16000')
  const pcm = execFileSync('ffmpeg', ['-v', 'error', '-i', 'pipe:0', '-f', 's16le', '-'], { input: flac })
  const back = new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length / 2)
  t.equal(back.length, samples.length)
  t.ok(
    back.every((v, i) => v === Math.round((samples[i] as number) * 32768)),
    'the samples, unchanged',
  )
})

t.test('withTotalSamples touches only a FLAC header', async (t) => {
  const notFlac = Buffer.from('RIFF....WAVEfmt and more bytes than forty-two of them, surely')
  t.same(withTotalSamples(Buffer.from(notFlac), 100), notFlac, 'a WAV is left as it is')
  const header = Buffer.alloc(42)
  header.write('fLaC', 0, 'latin1')
  header[21] = 0xf0 // bits per sample, 16
  const patched = withTotalSamples(header, 2 ** 32 + 5)
  t.equal(patched[21], 0xf1, 'the 36-bit count: its high bits beside the format bits')
  t.equal(patched.readUInt32BE(22), 5)
})
