// The floor of `dictum serve`'s start-up (bench/startup.ts): a Fastify server with one route, the same
// Fastify as dictum's, plain JavaScript (no TypeScript loader), started the way `dictum serve` is and timed
// until GET /v1/health answers. Usage: node bench/servers/one-route.mjs PORT
import Fastify from 'fastify'

const app = Fastify({ logger: false })
app.get('/v1/health', async () => ({ status: 'ok' }))
await app.listen({ host: '127.0.0.1', port: Number(process.argv[2]) })
process.on('SIGTERM', () => app.close().then(() => process.exit(0)))
