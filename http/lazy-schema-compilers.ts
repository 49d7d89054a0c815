/**
 * Route schemas compiled at each route's first use instead of at boot. Fastify compiles every route's
 * validation (Ajv) and response (fast-json-stringify) schemas when the app gets ready, and loads both
 * libraries to do so: a sizeable part of `dictum serve`'s start-up, for routes most sessions never call.
 * Here Fastify's own compilers are used unchanged, each route's schema compiled when a request first needs
 * it (a few ms, once per route and schema), and the libraries loaded with the first such request.
 *
 * The functions handed to Fastify behave as the compiled ones: a validator returns its result and carries
 * the compiled function's `errors`, which Fastify reads after a failed validation.
 */
import { createRequire } from 'node:module'

type Compiled = ((data: unknown) => unknown) & { errors?: unknown }
type RouteCompiler = (routeSchema: unknown) => Compiled
/** Fastify's compilersFactory entry: builds a context's compiler from its shared schemas and options. */
type CompilerBuilder = (externalSchemas: unknown, options: unknown) => RouteCompiler

// Resolved from Fastify's own folder: they are its dependencies, wherever the package manager put them.
const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'))

function lazyBuilder(load: () => CompilerBuilder): CompilerBuilder {
  let builder: CompilerBuilder | null = null
  return (externalSchemas, options) => {
    let compiler: RouteCompiler | null = null
    return (routeSchema) => {
      let compiled: Compiled | null = null
      const lazy: Compiled = (data) => {
        if (!compiled) {
          builder ??= load()
          compiler ??= builder(externalSchemas, options)
          compiled = compiler(routeSchema)
        }
        const result = compiled(data)
        lazy.errors = compiled.errors
        return result
      }
      return lazy
    }
  }
}

/** For Fastify's `schemaController.compilersFactory`. */
export function lazySchemaCompilers(): { buildValidator: CompilerBuilder; buildSerializer: CompilerBuilder } {
  return {
    buildValidator: lazyBuilder(() => fromFastify('@fastify/ajv-compiler')()),
    buildSerializer: lazyBuilder(() => fromFastify('@fastify/fast-json-stringify-compiler')()),
  }
}
