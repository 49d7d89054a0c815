/**
 * An answer closes its connection only when the request's body was not read to its end: requests without a
 * body keep their keep-alive connection. (Closing it after every fast GET, as the first version of that rule
 * did, cost every request a new connection: the kernel bench fell from 0.83 to 0.22 of bare Fastify.)
 */
import t from 'tap'
import { build } from '../helpers/build.ts'
import { listen } from '../helpers/http.ts'

t.test('GET answers keep the connection alive', async (t) => {
  const app = await build(t)
  const port = await listen(t, app)
  await app.dictum.dictionary.writeCustomWords({ entries: [{ text: 'Kubernetes' }] })
  for (const path of [
    '/v1/health',
    '/v1/dictionary/custom-words',
    '/v1/dictionary/replacements',
    '/v1/history',
  ]) {
    for (let i = 0; i < 5; i++) {
      const response = await fetch(`http://127.0.0.1:${port}${path}`)
      await response.text()
      t.not(response.headers.get('connection'), 'close', `${path} (request ${i + 1})`)
    }
  }
})
