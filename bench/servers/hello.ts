/** The baseline: a bare Fastify hello-world, same Fastify version and logger setting as dictum. */
import Fastify from 'fastify'

const app = Fastify({ logger: false })
app.get('/', async () => ({ hello: 'world' }))
await app.listen({ host: '127.0.0.1', port: 0 })
process.stdout.write(`${JSON.stringify({ port: (app.server.address() as { port: number }).port })}\n`)
process.on('SIGTERM', () => app.close().then(() => process.exit(0)))
