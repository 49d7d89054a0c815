/**
 * SIGTERM during a model pull (issue 28 item 14): a real `dictum serve` pulling from a local mirror that
 * sends the archive at 10 KB/s, as a slow network does. The pull's event stream must end
 * with an `error` event saying the service is stopping (it ended without one: the client could not tell a
 * stop from a dropped connection), and the service exits cleanly.
 */
import { once } from 'node:events'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { spawnServe } from '../cli/run-cli.ts'

const MODEL = 'vosk-model-small-en-us-0.15'

t.test(
  'SIGTERM mid-pull: the pull event stream ends with an error event, then the service exits',
  async (t) => {
    const slow = new Set<ServerResponse>()
    const mirror = createServer((request, response) => {
      if (request.url !== `/${MODEL}.zip`) {
        response.writeHead(404).end()
        return
      }
      response.writeHead(200, { 'content-type': 'application/zip', 'content-length': String(40_000_000) })
      // 10 KB/s: the 40 MB would take over an hour, and progress events keep coming meanwhile.
      const trickle = setInterval(() => response.write(Buffer.alloc(1024)), 100)
      response.on('close', () => clearInterval(trickle))
      slow.add(response)
    })
    mirror.listen(0, '127.0.0.1')
    await once(mirror, 'listening')
    t.teardown(() => {
      for (const response of slow) response.destroy()
      mirror.close()
    })
    const mirrorUrl = `http://127.0.0.1:${(mirror.address() as AddressInfo).port}`
    const serve = await spawnServe(t, { models: { mirror: mirrorUrl }, log: { level: 'info' } })

    const exited = once(serve.child, 'exit')
    // The stream is read until it ends, or until the service is gone (whatever it left unsent is lost then).
    const gone = new AbortController()
    void exited.then(() => gone.abort())
    const response = await fetch(`http://127.0.0.1:${serve.port}/v1/models/${MODEL}/pull`, {
      method: 'POST',
      headers: { accept: 'text/event-stream' },
      signal: gone.signal,
    })
    t.equal(response.status, 200)
    const events: { event: string; data: Record<string, unknown> }[] = []
    let buffered = ''
    let signalled = false
    const decoder = new TextDecoder()
    // A stream the server cuts off (no last event) rejects here; what arrived before is judged below.
    const read = async function* () {
      try {
        yield* response.body!
      } catch {}
    }
    for await (const chunk of read()) {
      buffered += decoder.decode(chunk, { stream: true })
      let end = buffered.indexOf('\n\n')
      while (end >= 0) {
        const block = buffered.slice(0, end)
        buffered = buffered.slice(end + 2)
        const name = /^event: (.*)$/mu.exec(block)?.[1] ?? 'message'
        const data = /^data: (.*)$/mu.exec(block)?.[1] ?? 'null'
        events.push({ event: name, data: JSON.parse(data) })
        end = buffered.indexOf('\n\n')
      }
      // Bytes are arriving: the download runs. Now stop the service.
      if (!signalled && events.some((e) => e.event === 'progress' && Number(e.data.receivedBytes) > 0)) {
        signalled = true
        serve.child.kill('SIGTERM')
      }
    }
    t.ok(signalled, 'the pull was downloading when the service was stopped')
    const last = events.at(-1)
    t.equal(
      last?.event,
      'error',
      `the last event is an error (events: ${events.map((e) => e.event).join(', ')})`,
    )
    t.match(last?.data, { code: 'MODEL_PULL_INTERRUPTED', status: 503, error: /service is stopping/u })
    const [code] = await exited
    t.equal(code, 0, 'the service exited cleanly')
  },
)
