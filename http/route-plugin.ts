/**
 * Wraps a route plugin with the name Fastify reports it by (a broken route plugin fails at boot, naming
 * itself), keeping it encapsulated. No Fastify version range: the routes ship with the Fastify they were
 * written for, and the range was checked with semver for each of them at every start.
 */
import fp from 'fastify-plugin'
import type { DictumApp } from './app.ts'

export function routePlugin(name: string, plugin: (app: DictumApp) => Promise<void>) {
  return fp(plugin as never, { name: `dictum-${name}`, encapsulate: true })
}
