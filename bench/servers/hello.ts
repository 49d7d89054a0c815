/** The baseline: a bare Fastify hello-world, same Fastify version and logger setting as dictum. */
import Fastify from 'fastify'

const app = Fastify({ logger: false })
app.get('/', async () => ({ hello: 'world' }))
// The body dictum sends for its 20 benchmark words, to show what the payload alone costs.
const words = JSON.stringify({
  count: 20,
  items: Array.from({ length: 20 }, (_, i) => ({ text: `Word${i}`, weight: i + 1, aliases: [`word ${i}`] })),
})
app.get('/words', async (_request, reply) => reply.type('application/json; charset=utf-8').send(words))
await app.listen({ host: '127.0.0.1', port: 0 })
process.stdout.write(`${JSON.stringify({ port: (app.server.address() as { port: number }).port })}\n`)
process.on('SIGTERM', () => app.close().then(() => process.exit(0)))
