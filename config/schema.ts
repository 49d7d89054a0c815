/**
 * The configuration schema: the single source of truth for config keys, their types and defaults.
 * Key names are fixed by docs/api-decisions.md; scripts rely on them.
 */
import { type Static, Type } from '@sinclair/typebox'

export const ApiSchema = Type.Object(
  {
    enabled: Type.Boolean({ default: true, description: 'Serve the local HTTP API.' }),
    host: Type.String({ default: '127.0.0.1', minLength: 1, description: 'Address to bind.' }),
    port: Type.Integer({
      minimum: 0,
      maximum: 65535,
      default: 47733,
      description: 'TCP port (0: any free).',
    }),
    token: Type.Union([Type.String({ minLength: 1 }), Type.Null()], {
      default: null,
      description: 'When set, every request needs `Authorization: Bearer <token>`.',
    }),
    allowedOrigins: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description: 'Browser origins (besides loopback ones) allowed to call the API.',
    }),
    allowedHosts: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description:
        'Host header names (besides loopback ones) accepted, e.g. a LAN name when binding 0.0.0.0.',
    }),
    bodyLimit: Type.Integer({
      minimum: 1024,
      default: 1_048_576,
      description: 'Body limit (bytes), non-audio.',
    }),
    audioBodyLimit: Type.Integer({
      minimum: 1024,
      default: 25_000_000,
      description: 'Request body limit (bytes) of audio uploads such as /v1/transcribe.',
    }),
    requestTimeoutMs: Type.Integer({
      minimum: 1000,
      default: 60_000,
      description:
        'A request (headers and body) not received within this time is answered 408 and its connection closed.',
    }),
    maxConcurrentUploads: Type.Integer({
      minimum: 1,
      default: 16,
      description: 'Audio uploads received at once; more are answered 503 with Retry-After.',
    }),
  },
  { additionalProperties: false, default: {} },
)

export const SpeechSchema = Type.Object(
  {
    engine: Type.String({ default: 'pocketsphinx', minLength: 1, description: 'Id of the selected engine.' }),
    engines: Type.Record(Type.String(), Type.Unknown(), {
      default: {},
      description: 'Options of each engine, by engine id.',
    }),
    concurrency: Type.Union([Type.Integer({ minimum: 1, maximum: 64 }), Type.Literal('auto')], {
      default: 'auto',
      errorMessage: 'Expected "auto" or an integer from 1 to 64',
      description:
        'Transcriptions one engine runs at once (each is an engine process with its own model). "auto": one per core, as many as the free memory holds at the engine\'s estimate per process.',
    }),
    timeoutMs: Type.Integer({
      minimum: 100,
      default: 300_000,
      description: 'A transcription of one piece taking longer is stopped (the engine process is restarted).',
    }),
    loadTimeoutMs: Type.Integer({ minimum: 100, default: 120_000, description: 'Model load time limit.' }),
    memoryLimitMb: Type.Union([Type.Integer({ minimum: 128 }), Type.Null()], {
      default: null,
      description:
        "Memory one engine process may use, in MB; over it the process is stopped and the request fails. null: half of the machine's memory.",
    }),
  },
  { additionalProperties: false, default: {} },
)

export const AudioSchema = Type.Object(
  {
    ffmpegPath: Type.Union([Type.String({ minLength: 1 }), Type.Null()], {
      default: null,
      description: 'ffmpeg binary for non-WAV formats (else env FFMPEG_PATH, ffmpeg-static, PATH).',
    }),
    maxSeconds: Type.Number({
      exclusiveMinimum: 0,
      default: 7200,
      description: 'Longest audio accepted, in seconds.',
    }),
  },
  { additionalProperties: false, default: {} },
)

export const VadSchema = Type.Object(
  {
    enabled: Type.Boolean({ default: true, description: 'Cut long audio at pauses with Silero VAD.' }),
    model: Type.Union([Type.String({ minLength: 1 }), Type.Null()], {
      default: null,
      description: 'Path of silero_vad.onnx (else the installed catalog model `silero-vad`).',
    }),
    threshold: Type.Number({ minimum: 0.05, maximum: 0.95, default: 0.5 }),
    minSilenceSeconds: Type.Number({ minimum: 0.05, maximum: 5, default: 0.5 }),
    minSpeechSeconds: Type.Number({ minimum: 0.05, maximum: 5, default: 0.25 }),
    maxSegmentSeconds: Type.Union([Type.Number({ minimum: 1, maximum: 600 }), Type.Null()], {
      default: null,
      description: 'Longest piece sent to the engine (default: the engine’s own window).',
    }),
  },
  { additionalProperties: false, default: {} },
)

export const ModelsSchema = Type.Object(
  {
    autoPull: Type.Boolean({ default: false, description: 'Download the selected model on first use.' }),
    mirror: Type.Union([Type.String({ minLength: 1 }), Type.Null()], {
      default: null,
      description: 'Base URL of a mirror that serves the catalog archives by file name.',
    }),
  },
  { additionalProperties: false, default: {} },
)

export const AiSchema = Type.Object(
  {
    provider: Type.String({
      default: 'none',
      minLength: 1,
      description: 'Id of the AI provider, or `none`.',
    }),
    providers: Type.Record(Type.String(), Type.Unknown(), {
      default: {},
      description: 'Options of each provider, by provider id.',
    }),
    timeoutMs: Type.Union([Type.Integer({ minimum: 100 }), Type.Null()], {
      default: null,
      description:
        "Post-processing time limit for every provider (the shorter of it and a provider's own timeoutMs wins); null: each provider's own timeoutMs, 30 s for a provider without one.",
    }),
    appPrompts: Type.Record(Type.String(), Type.String(), {
      default: {},
      description: 'Prompt per application name (dictation `appName`), overriding the provider prompt.',
    }),
  },
  { additionalProperties: false, default: {} },
)

export const DictationSchema = Type.Object(
  {
    commands: Type.Boolean({
      default: true,
      description:
        'Editing by voice on every dictation (POST /v1/dictate, dictum dictate, live dictation sessions): spoken punctuation and layout ("comma", "new line"), "scratch that" / "delete that", "cap <word>", "all caps <word>", "no space", "literally <word>" (docs/desktop.md). History keeps the raw text beside the result; transcription routes never apply it.',
    }),
  },
  { additionalProperties: false, default: {} },
)

export const HistorySchema = Type.Object(
  {
    enabled: Type.Boolean({ default: true, description: 'Keep a history of dictations.' }),
    maxEntries: Type.Integer({
      minimum: 1,
      default: 10_000,
      description: 'Oldest entries beyond this are removed.',
    }),
    recordTranscribe: Type.Boolean({ default: false, description: 'Also record /v1/transcribe results.' }),
    keepAudio: Type.Boolean({
      default: true,
      description:
        'Keep the audio of each dictation (/v1/dictate, live utterances, `dictum dictate`) with its entry, as FLAC: it plays back and lets corrections be replayed (learning).',
    }),
    audioRetentionDays: Type.Integer({
      minimum: 0,
      default: 30,
      description:
        'Kept audio older than this many days is deleted (the entry stays); 0 keeps it until the entry goes.',
    }),
    audioMaxMb: Type.Number({
      minimum: 0,
      default: 1024,
      description:
        'The kept audio of all entries together stays under this many MB: the oldest recordings go first.',
    }),
  },
  { additionalProperties: false, default: {} },
)

export const LearningSchema = Type.Object(
  {
    autoAccept: Type.Boolean({
      default: false,
      description:
        'Accept a suggestion learned from corrections on its own when its replay fixes at least one recording and breaks none.',
    }),
    replaySample: Type.Integer({
      minimum: 0,
      maximum: 200,
      default: 10,
      description:
        'Replay checks a suggestion on its own recordings and on at most this many other recordings (newest first), to catch what it would break.',
    }),
    replayMaxSeconds: Type.Number({
      minimum: 1,
      default: 300,
      description:
        'A replay stops after this long (the recordings left are not checked; `complete` says so).',
    }),
    pronunciations: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "Pronunciation dictionary (CMUdict format) that tells a mishearing from a rewrite; default: the dictionary of the model of the engine that heard the text (pocketsphinx's), else espeak-ng.",
      }),
    ),
  },
  { additionalProperties: false, default: {} },
)

export const RealtimeSchema = Type.Object(
  {
    maxSessions: Type.Integer({
      minimum: 1,
      default: 8,
      description:
        'Live dictation sessions open at once (realtime WebSocket, Wyoming, streamed transcriptions); more are refused.',
    }),
    idleTimeoutMs: Type.Integer({
      minimum: 1000,
      default: 30_000,
      description: 'A live session that receives no audio or event for this long is closed.',
    }),
    maxUtteranceSeconds: Type.Number({
      exclusiveMinimum: 0,
      default: 120,
      description: 'Longest utterance of a live session: speech going on past it is committed there.',
    }),
    maxBacklogSeconds: Type.Number({
      minimum: 1,
      default: 30,
      description:
        'Committed audio of a live session waiting behind the item being transcribed, at most (seconds): at half of it the client gets a warning (error SESSION_BACKLOG, not fatal), past it the session is closed (fatal SESSION_BACKLOG).',
    }),
    maxFrameBytes: Type.Integer({
      minimum: 1024,
      default: 1_048_576,
      description: 'Largest message (WebSocket frame, Wyoming event) a live session accepts.',
    }),
    maxQueuedAudioSeconds: Type.Number({
      minimum: 1,
      default: 60,
      description:
        'Audio a live session has received and not yet processed (converted, resampled, run through the VAD), at most: a client sending faster gets an error (AUDIO_TOO_FAST) and the session is closed.',
    }),
    maxSendQueueBytes: Type.Integer({
      minimum: 65_536,
      default: 1_048_576,
      description:
        'Server events queued for a realtime client that does not read them, at most: past it the connection is dropped.',
    }),
  },
  { additionalProperties: false, default: {} },
)

export const WyomingSchema = Type.Object(
  {
    enabled: Type.Boolean({
      default: false,
      description: 'Serve the Wyoming protocol (Home Assistant voice pipelines) for speech to text.',
    }),
    host: Type.String({
      default: '127.0.0.1',
      minLength: 1,
      description: 'Address the Wyoming server binds.',
    }),
    port: Type.Integer({
      minimum: 0,
      maximum: 65535,
      default: 10300,
      description: 'TCP port of the Wyoming server (0: any free).',
    }),
    allowWithoutToken: Type.Boolean({
      default: false,
      description:
        'Serve Wyoming even when `api.token` is set. Wyoming has no authentication: whoever reaches the port transcribes without the token.',
    }),
    maxConnections: Type.Integer({
      minimum: 1,
      default: 32,
      description: 'Wyoming connections open at once; more are refused with an error event and closed.',
    }),
    maxConnectionsPerClient: Type.Integer({
      minimum: 1,
      default: 8,
      description: 'Wyoming connections open at once from one client address; more are refused.',
    }),
    idleTimeoutMs: Type.Integer({
      minimum: 1000,
      default: 30_000,
      description:
        'A Wyoming connection that receives no audio for this long is closed (ping and describe do not count).',
    }),
  },
  { additionalProperties: false, default: {} },
)

export const WebSchema = Type.Object(
  {
    enabled: Type.Boolean({
      default: true,
      description: 'Serve the web app at / on the API listener (same guard and token as the API).',
    }),
  },
  { additionalProperties: false, default: {} },
)

/** A host pattern of `jobs.urlAllow`/`jobs.urlDeny`: a name, `*.domain`, an IP address or a range (CIDR). */
export const HOST_PATTERN = '^(?:\\*\\.)?[A-Za-z0-9_.-]+$|^[0-9A-Fa-f:.]+(?:/[0-9]{1,3})?$'

export const JobsSchema = Type.Object(
  {
    backend: Type.Union([Type.Literal('local'), Type.Literal('redis')], {
      default: 'local',
      description:
        'Where transcription jobs queue: `local` (in this process, kept in the database) or `redis` (BullMQ on `jobs.redis.url`, run by `dictum worker`s).',
    }),
    resultsDir: Type.Union([Type.String({ minLength: 1 }), Type.Null()], {
      default: null,
      description: 'Folder of job results and uploaded audio (null: `<dataDir>/jobs`).',
    }),
    concurrency: Type.Integer({
      minimum: 1,
      maximum: 64,
      default: 1,
      description: 'Jobs the local backend (or one worker) runs at once.',
    }),
    attempts: Type.Integer({
      minimum: 1,
      maximum: 100,
      default: 3,
      description: 'Runs of a job before it fails (a run cut short by a restart counts).',
    }),
    maxUrlBytes: Type.Integer({
      minimum: 1024,
      default: 1_000_000_000,
      description: 'Largest audio a job fetches from a URL, in bytes.',
    }),
    urlTimeoutMs: Type.Integer({
      minimum: 1000,
      default: 600_000,
      description: 'Time limit of fetching a job’s audio from a URL.',
    }),
    urlMinBytesPerSecond: Type.Integer({
      minimum: 0,
      default: 8192,
      description:
        'Slowest fetch of a job’s audio from a URL: one that receives fewer bytes per second than this over a window of `jobs.urlRateWindowMs` (the first window, from the request, is the grace period) is abandoned (0: no minimum).',
    }),
    urlRateWindowMs: Type.Integer({
      minimum: 100,
      default: 30_000,
      description: 'The window over which `jobs.urlMinBytesPerSecond` is measured, in milliseconds.',
    }),
    urlAllow: Type.Array(Type.String({ pattern: HOST_PATTERN }), {
      default: [],
      description:
        'Hosts jobs may fetch audio from: names (`media.example.com`), `*.example.com`, addresses or ranges (`10.0.0.0/8`). Empty: any host but loopback, link-local and unspecified addresses, which are fetched only when listed here.',
    }),
    urlDeny: Type.Array(Type.String({ pattern: HOST_PATTERN }), {
      default: [],
      description:
        'Hosts jobs never fetch audio from (same patterns as `jobs.urlAllow`), checked against the name and every address it resolves to, at each redirect.',
    }),
    redis: Type.Object(
      {
        url: Type.Union([Type.String({ minLength: 1 }), Type.Null()], {
          default: null,
          description: 'Redis of the `redis` backend, e.g. `redis://127.0.0.1:6379` (`rediss://` for TLS).',
        }),
        options: Type.Record(Type.String(), Type.Unknown(), {
          default: {},
          description: 'Connection options passed to ioredis as they are (username, password, tls, db…).',
        }),
        lockDurationMs: Type.Integer({
          minimum: 1000,
          default: 30_000,
          description:
            'A worker holds its job’s lock this long and renews it every half of it; a worker that died (kill -9, lost machine) lets it lapse, and its job is run again.',
        }),
        stalledIntervalMs: Type.Integer({
          minimum: 500,
          default: 30_000,
          description: 'How often workers look for jobs whose lock lapsed, to run them again.',
        }),
        retryDelayMs: Type.Integer({
          minimum: 0,
          default: 1000,
          description: 'Wait before a failed run is tried again, doubled at each further attempt.',
        }),
        fanOutSeconds: Type.Number({
          minimum: 0,
          default: 300,
          description:
            'A file longer than this (seconds) is cut at pauses into parts that run on any worker in parallel and are joined in order (0: never).',
        }),
        partSeconds: Type.Number({
          exclusiveMinimum: 0,
          default: 60,
          description:
            'Audio in one part of a fanned-out file, in seconds (whole VAD pieces, so about this much).',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
  },
  { additionalProperties: false, default: {} },
)

export const LogSchema = Type.Object(
  {
    level: Type.Union(
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
      { default: 'info' },
    ),
    requests: Type.Boolean({
      default: true,
      description: 'Log one line per request (method, path, status, time) at info; applied live.',
    }),
  },
  { additionalProperties: false, default: {} },
)

export const ConfigSchema = Type.Object(
  {
    $schema: Type.Optional(
      Type.String({
        description: "The JSON Schema of this file, for editors (dictum's config.schema.json).",
      }),
    ),
    api: ApiSchema,
    dataDir: Type.String({ minLength: 1, description: 'Holds the database and downloaded models.' }),
    speech: SpeechSchema,
    audio: AudioSchema,
    vad: VadSchema,
    models: ModelsSchema,
    ai: AiSchema,
    dictation: DictationSchema,
    history: HistorySchema,
    learning: LearningSchema,
    realtime: RealtimeSchema,
    wyoming: WyomingSchema,
    web: WebSchema,
    jobs: JobsSchema,
    plugins: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description: 'Extra engine/provider modules: paths (relative to the config file) or package names.',
    }),
    log: LogSchema,
  },
  { additionalProperties: false },
)

export type DictumConfig = Static<typeof ConfigSchema>

/** Where each part of the config came from, for `dictum config` and reload. */
export interface ConfigSources {
  /** The config file in force, or null when none was found (defaults apply). */
  file: string | null
}
