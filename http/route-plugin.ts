/**
 * Wraps a route plugin with metadata that Fastify checks at registration (name, Fastify major), keeping it
 * encapsulated: a broken route plugin fails at boot, naming itself.
 */
import fp from 'fastify-plugin'
import type { DictumApp } from './app.ts'

export function routePlugin(name: string, plugin: (app: DictumApp) => Promise<void>) {
  return fp(plugin as never, { name: `dictum-${name}`, fastify: '5.x', encapsulate: true })
}
