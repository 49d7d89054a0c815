/** Real HTTP requests with full control of headers (Host, Origin, Content-Length), for listener tests. */
import http from 'node:http'
import type { Test } from 'tap'
import type { DictumApp } from '../../http/app.ts'

export interface RawResponse {
  status: number
  headers: http.IncomingHttpHeaders
  text: string
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
  json: any
}

export interface RawRequest {
  port: number
  method?: string
  path: string
  headers?: Record<string, string | number>
  body?: Buffer | string
}

export function rawRequest(options: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port: options.port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: options.headers,
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = []
        response.on('data', (c: Buffer) => chunks.push(c))
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8')
          let json: unknown
          try {
            json = JSON.parse(text)
          } catch {
            json = undefined
          }
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json })
        })
        response.on('error', reject)
      },
    )
    request.on('error', reject)
    request.end(options.body)
  })
}

/** Listens on a free loopback port; closes on teardown. */
export async function listen(t: Test, app: DictumApp): Promise<number> {
  await app.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(() => app.server.closeAllConnections())
  return (app.server.address() as { port: number }).port
}
