/**
 * One strict Awilix container per app: every service and resource of an app hangs off it, so two apps in one
 * process never share anything. The kernel registers its own services here; features add theirs
 * (`Feature`, below) and declare them on `Cradle`. `closeContainer` releases resources in reverse order of
 * dependency.
 *
 * Awilix is imported as `awilix/browser` everywhere: its build without `loadModules` (dictum registers every
 * service by name), whose fast-glob would otherwise load with every start (biome.json refuses the plain import).
 */
import path from 'node:path'
import type { TObject } from '@sinclair/typebox'
import {
  type AwilixContainer,
  asClass,
  asFunction,
  asValue,
  createContainer,
  InjectionMode,
  type Resolver,
} from 'awilix/browser'
import type { FastifyPluginAsync } from 'fastify'
import type { DictumConfig } from '../config/schema.ts'
import { errors } from '../errors/catalogue.ts'
import type { ErrorTable } from '../errors/dictum-error.ts'
import { type Db, openDatabase } from '../storage/database.ts'
import type { FeatureMigrations } from '../storage/migrations.ts'
import { type MachineResources, systemResources } from './concurrency.ts'
import { ConfigStore } from './config-store.ts'
import type { PluginLogger } from './contracts/engine.ts'
import type { DiscoveryResult } from './discovery.ts'
import { createEngineRunner } from './engine-runner/index.ts'
import { ProviderRegistry } from './provider-registry.ts'
import { EngineRegistry, type RunnerFactory } from './registry.ts'

/** The app's services. The kernel's are declared here; each feature declares its own on this interface. */
export interface Cradle {
  configStore: ConfigStore
  /** The composed config schema (server/config-schema.ts): what a valid config is, for edits made in the app. */
  configSchema: TObject
  logger: PluginLogger
  discovery: DiscoveryResult
  dataDir: string
  modelsDir: string
  db: Db
  runnerFactory: RunnerFactory
  engines: EngineRegistry
  providers: ProviderRegistry
  /** The machine's cores and free memory, as `speech.concurrency: "auto"` reads them (tests inject theirs). */
  machine: MachineResources
}

/**
 * A feature of dictum: what it adds to an app. Each feature folder (a route group under routes/, or audio/,
 * vad/, models/, live/) exports one and owns everything in it, so adding a feature touches its folder and the list
 * that names it (server/app.ts; its config keys, in its config.ts, are listed in server/config-schema.ts). The
 * kernel only runs the list: it registers the services, opens the database with the tables, registers the
 * routes, and closes the features in reverse order.
 */
export interface Feature {
  /** Names the feature in errors, and its tables in `feature_versions`. */
  name: string
  /**
   * The features whose services this one uses, by name. An app whose list lacks one fails at start, naming
   * both (`FEATURE_MISSING`), rather than at the first request that resolves the missing service. Order in
   * the list does not matter: services are created on first use.
   */
  dependencies?: readonly string[]
  /**
   * Services it adds to the app's container. A feature that adds a service declares its type on `Cradle`
   * (`declare module '…/kernel/container.ts' { interface Cradle { … } }`) so its users resolve it typed.
   */
  services?: { [K in keyof Cradle]?: Resolver<Cradle[K]> }
  /**
   * Its own error codes (`defineErrors(name, {...}).table`, in its folder's errors.ts): composed with the
   * core's by {@link errorTables}, which the catalogue test checks against docs/errors.md.
   */
  errors?: ErrorTable
  /** Its tables' migrations, in order (storage/migrations.ts). */
  migrations?: readonly string[]
  /** Its HTTP routes, registered under `prefix`. */
  routes?: { prefix: string; plugin: FastifyPluginAsync }
  /** Releases what its services hold (processes, files), when the app closes; features close in reverse. */
  close?: (cradle: Cradle) => Promise<void>
}

/** Every feature's dependencies are in the list: else the start fails, naming the feature and the one it needs. */
export function checkFeatureDependencies(features: readonly Feature[]): void {
  const names = new Set(features.map((f) => f.name))
  for (const feature of features) {
    const missing = (feature.dependencies ?? []).filter((name) => !names.has(name))
    if (missing.length > 0) {
      throw errors.FEATURE_MISSING(
        `feature "${feature.name}" needs ${missing.map((m) => `"${m}"`).join(', ')}, not in the app's list of features.`,
      )
    }
  }
}

/** Every error code of an app of these features: the core's table, then each feature's. */
export function errorTables(features: readonly Feature[]): ErrorTable[] {
  return [errors.table, ...features.flatMap((f) => (f.errors ? [f.errors] : []))]
}

/** The tables of these features, for the database (storage/migrations.ts). */
export function featureTables(features: readonly Feature[]): FeatureMigrations[] {
  return features.flatMap((f) => (f.migrations ? [{ feature: f.name, migrations: f.migrations }] : []))
}

export type DictumContainer = AwilixContainer<Cradle>

export interface ContainerOptions {
  config: Readonly<DictumConfig>
  /** The schema the config was validated with. */
  configSchema: TObject
  configFile: string | null
  logger: PluginLogger
  discovery: DiscoveryResult
  features: readonly Feature[]
  /** Replace the engine runner factory (tests). */
  runnerFactory?: RunnerFactory
  /** Replace services after the features registered theirs (tests: e.g. a model manager with a test catalog). */
  services?: Feature['services']
}

export function buildContainer(options: ContainerOptions): DictumContainer {
  checkFeatureDependencies(options.features)
  const container = createContainer<Cradle>({ injectionMode: InjectionMode.PROXY, strict: true })
  const configStore = new ConfigStore(options.config, options.configFile)
  // dataDir is fixed for the app's lifetime: the database is open in it.
  const dataDir = options.config.dataDir
  const tables = featureTables(options.features)
  container.register({
    configStore: asValue(configStore),
    configSchema: asValue(options.configSchema),
    logger: asValue(options.logger),
    discovery: asValue(options.discovery),
    dataDir: asValue(dataDir),
    modelsDir: asValue(path.join(dataDir, 'models')),
    db: asFunction(({ dataDir }: Cradle) => openDatabase({ dataDir, features: tables })).singleton(),
    runnerFactory: asValue(options.runnerFactory ?? createEngineRunner),
    engines: asClass(EngineRegistry).singleton(),
    providers: asClass(ProviderRegistry).singleton(),
    machine: asValue(systemResources),
  })
  for (const feature of options.features) if (feature.services) container.register(feature.services as never)
  if (options.services) container.register(options.services as never)
  return container
}

/**
 * Closes what the container created, users before what they use: the engines and providers (their hosts
 * and requests), then the features in reverse order (decoder, VAD, downloads…), then the database.
 */
export async function closeContainer(
  container: DictumContainer,
  features: readonly Feature[],
): Promise<void> {
  const resolved = (name: string) => container.cache.has(name)
  const closing: Promise<unknown>[] = []
  if (resolved('engines')) closing.push(container.cradle.engines.close())
  if (resolved('providers')) closing.push(container.cradle.providers.close())
  for (const feature of [...features].reverse()) {
    // A feature's services that were never resolved hold nothing.
    const used = Object.keys(feature.services ?? {}).some(resolved)
    if (feature.close && used) closing.push(feature.close(container.cradle))
  }
  await Promise.allSettled(closing)
  if (resolved('db')) container.cradle.db.close()
  await container.dispose()
}
