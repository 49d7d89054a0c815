/**
 * `{"path": …}` cannot make ffmpeg read other files: a concat list or an HLS/M3U playlist naming a secret file
 * is refused before ffmpeg opens it, and the answer names neither that file nor its content (ffmpeg used to
 * quote them in its errors).
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { build, injectJson, tempDir } from '../../helpers/build.ts'
import { audioFixturesDir } from '../../helpers/fixtures.ts'

t.test('playlists and concat lists are refused without reading what they name', async (t) => {
  const app = await build(t)
  const dir = tempDir(t)
  const secret = path.join(dir, 'private-notes.txt')
  writeFileSync(secret, 'the launch code is 0000\n')
  const speech = path.join(audioFixturesDir, 'goforward.wav')
  const inputs: Record<string, string> = {
    'list.ffconcat': `ffconcat version 1.0\nfile '${secret}'\nfile '${speech}'\n`,
    'list.txt': `file '${secret}'\n`,
    'play.m3u8': `#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n${secret}\n#EXT-X-ENDLIST\n`,
    'play.m3u': `#EXTM3U\n${speech}\n`,
    'stream.sdp': 'v=0\no=- 0 0 IN IP4 127.0.0.1\ns=x\nc=IN IP4 127.0.0.1\nm=audio 5004 RTP/AVP 0\n',
  }
  for (const [name, content] of Object.entries(inputs)) {
    const file = path.join(dir, name)
    writeFileSync(file, content)
    const response = await injectJson(app, 'POST', '/v1/transcribe', { path: file })
    t.equal(response.status, 400, name)
    t.match(
      response.body,
      { code: 'AUDIO_DECODE_FAILED', error: /^Could not decode audio: the file is text/ },
      name,
    )
    const text = JSON.stringify(response.body)
    t.notOk(
      text.includes('private-notes') || text.includes('launch code'),
      `${name}: nothing of the other file`,
    )
  }
  const fine = await injectJson(app, 'POST', '/v1/transcribe', { path: speech })
  t.equal(fine.status, 200, 'audio is still audio')
})
