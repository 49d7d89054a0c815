/**
 * The Dictate view with real speech in Chromium's microphone (issue 14, Must show): Chromium's fake capture
 * device plays a speech clip, the page streams it through its AudioWorklet to /v1/realtime (with the token as
 * a subprotocol: dictum here has api.token, so the page first asks for it), pocketsphinx transcribes, and
 * the text that appears is the text POST /v1/transcribe gives for that clip.
 *
 * What is fair to compare: the page's audio is not the clip's samples. The clip (16 kHz) is converted to the
 * 48 kHz 16-bit WAV the fake device reads, Chromium resamples it to the page's 24 kHz, and dictum back to
 * 16 kHz. So the test checks two things: the text equals /v1/transcribe of the clip file itself (what the
 * issue asks, and what a person expects), and it equals /v1/transcribe of exactly the audio the page sent,
 * read off the WebSocket frames and cut where the server VAD cut the utterance (the check that cannot be
 * off by resampling). The clip is goforward.wav: a clear one, whose text came out the same in every run;
 * with librispeech-1089-134686-0001.wav pocketsphinx heard a borderline "you" in about half the runs (the
 * resampling and where the VAD cut differ by a few milliseconds from run to run), so the first check failed
 * there while the second held. The fake device loops the file: the clip is padded with 1 s of silence before and 40 s
 * after, and the test stops after the first utterance is final, inside that silence (5 s was too short once on
 * a busy machine: the first item, which starts the live engine host, completed after the loop had begun again).
 * With ai.provider `rules`, the page also shows the raw and the cleaned text (/v1/postprocess).
 */
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { pcm16Wav } from '../../audio/wav-encode.ts'
import { build, tempDir } from '../helpers/build.ts'
import { audioFixturesDir } from '../helpers/fixtures.ts'
import { listen } from '../helpers/http.ts'
import { launch, noBrowser, screenshots, textOf, watchedPage } from '../web/browser.ts'

const pocketsphinx = existsSync('/usr/share/pocketsphinx/model/en-us/en-us.lm.bin')
const skip =
  noBrowser || (pocketsphinx ? false : 'pocketsphinx-en-us is not installed (run scripts/setup.sh)')

const TOKEN = 'web-dictate-token'
const CLIP = path.join(audioFixturesDir, 'goforward.wav')
const RATE = 24000

t.test('speech in the microphone: the page shows the text /v1/transcribe gives', { skip }, async (t) => {
  const dir = tempDir(t)
  // Chromium's fake capture reads a WAV file; 48 kHz 16-bit mono, the rate of a common microphone. It plays
  // from when the device opens; the page's audio worklet, which hands the page its chunks, starts after
  // that. 4 s of silence before the speech: with 1 s, a run with both cores busy lost "go forward".
  const fakeMic = path.join(dir, 'microphone.wav')
  execFileSync('ffmpeg', [
    ...['-v', 'error', '-i', CLIP, '-af', 'adelay=4000,apad=pad_dur=40'],
    ...['-ar', '48000', '-ac', '1', '-c:a', 'pcm_s16le', fakeMic],
  ])
  const app = await build(t, {
    speech: { engine: 'pocketsphinx' },
    ai: { provider: 'rules' },
    api: { token: TOKEN },
  })
  const port = await listen(t, app)
  const base = `http://127.0.0.1:${port}`
  const auth = { authorization: `Bearer ${TOKEN}` }

  const browser = await launch(t, [
    '--use-fake-ui-for-media-stream',
    '--use-fake-device-for-media-stream',
    `--use-file-for-fake-audio-capture=${fakeMic}`,
  ])
  await browser
    .defaultBrowserContext()
    .overridePermissions(base, ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write'])
  // The API's 401s before the token is entered are expected.
  const { page, problems } = await watchedPage(browser, [/status of 401/])
  const cdp = await page.createCDPSession()
  await cdp.send('Network.enable')
  const sent: Buffer[] = []
  const received: { type: string; [key: string]: unknown }[] = []
  let subprotocols: string | undefined
  cdp.on('Network.webSocketWillSendHandshakeRequest', (e) => {
    subprotocols = e.request.headers['Sec-WebSocket-Protocol'] as string | undefined
  })
  cdp.on('Network.webSocketFrameSent', (e) => {
    const event = JSON.parse(e.response.payloadData)
    if (event.type === 'input_audio_buffer.append') sent.push(Buffer.from(event.audio, 'base64'))
  })
  cdp.on('Network.webSocketFrameReceived', (e) => received.push(JSON.parse(e.response.payloadData)))

  await page.goto(`${base}/#/dictate`)
  await page.waitForSelector('#token')
  await page.type('#token', TOKEN)
  await page.click('button[type="submit"]')
  await page.waitForSelector('#record')
  await page.waitForFunction("document.querySelector('#provider')?.textContent === 'rules'")
  t.pass('the page shows the AI provider in force')

  // The keyboard shortcut starts it.
  await page.keyboard.down('Alt')
  await page.keyboard.down('Shift')
  await page.keyboard.press('KeyR')
  await page.keyboard.up('Shift')
  await page.keyboard.up('Alt')
  await page.waitForSelector('#record[aria-pressed="true"]')
  t.equal(subprotocols, `realtime, openai-insecure-api-key.${TOKEN}`, 'the token as a subprotocol')
  // How long speech takes to come back depends on the CPU the machine leaves the service: a loaded CI run
  // (two busy loops beside the suite) took over 30 s for the first item. The waits are bounds, not timings.
  const speech = { timeout: 120_000 }
  // A failed wait says what the server had sent by then, and how much audio the page had sent.
  t.teardown(() => {
    if (t.passing()) return
    const events = received.map((event) => event.type).join(', ')
    t.comment(`${sent.length} audio chunks sent; events received: ${events}`)
  })
  await page.waitForSelector('#utterances li[data-state="completed"]', speech)
  const live = await textOf(page, '#live-text')
  await page.click('#record')
  await page.waitForSelector('#final-text', speech)
  await page.waitForSelector('#cleaned-text', speech)

  const items = await page.$$eval('#utterances li', (list) => list.map((li) => li.textContent?.trim() ?? ''))
  t.equal(items.length, 1, 'one utterance: stopped inside the silence after it')
  const dictated = await textOf(page, '#raw-text')
  t.equal(live, dictated, 'the live text grew into the final text')
  t.equal(await textOf(page, '#engine'), 'pocketsphinx', 'the engine used')

  const clipText = (await (
    await fetch(`${base}/v1/transcribe`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ path: CLIP }),
    })
  ).json()) as { text: string }
  t.ok(clipText.text.split(' ').length >= 3, `the clip has words: "${clipText.text}"`)
  t.equal(dictated, clipText.text, 'the dictated text is what /v1/transcribe gives for the clip')

  // The same audio the page sent, cut where the VAD cut it.
  const started = received.find((e) => e.type === 'input_audio_buffer.speech_started')
  const stopped = received.find((e) => e.type === 'input_audio_buffer.speech_stopped')
  t.ok(started && stopped, 'the server VAD cut the utterance')
  const pcm = Buffer.concat(sent)
  const from = ((started?.audio_start_ms as number) * RATE) / 1000
  const to = ((stopped?.audio_end_ms as number) * RATE) / 1000
  const sentText = (await (
    await fetch(`${base}/v1/transcribe`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'audio/wav' },
      body: pcm16Wav(pcm.subarray(from * 2, to * 2), RATE),
    })
  ).json()) as { text: string }
  t.equal(dictated, sentText.text, 'and what it gives for the audio the page sent')

  const cleaned = (await (
    await fetch(`${base}/v1/postprocess`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ text: dictated }),
    })
  ).json()) as { text: string }
  t.equal(await textOf(page, '#cleaned-text'), cleaned.text, 'the cleaned text is the provider’s')
  t.equal(await textOf(page, '#final-text'), cleaned.text, 'and the final text')

  // The clipboard takes writes from a focused page.
  await page.bringToFront()
  await page.click('#final-text ~ .actions button')
  await page.waitForFunction("document.body.textContent.includes('Copied.')")
  t.equal(await page.evaluate('navigator.clipboard.readText()'), cleaned.text, 'copied to the clipboard')

  const history = (await (await fetch(`${base}/v1/history?app=web`, { headers: auth })).json()) as {
    items: { rawText: string }[]
  }
  t.same(
    history.items.map((e) => e.rawText),
    [dictated],
    'the utterance is in history under the app "web"',
  )
  await screenshots(page, 'dictate')
  t.same(problems, [], 'no errors in the page')
})
