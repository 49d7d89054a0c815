/**
 * Test fixtures for model management: archives built in the test (system `tar -cjf` / `zip`, and hand-made
 * tar / zip bytes for malicious entries), a local HTTP server on 127.0.0.1 serving them with Range support,
 * and a test catalog pointing at that server.
 */
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { crc32 } from 'node:zlib'
import type { CatalogEntry } from '../../kernel/contracts/catalog.ts'

export const MODEL_FILES: Record<string, string> = {
  'encoder.onnx': 'encoder weights '.repeat(4000),
  'decoder.onnx': 'decoder weights '.repeat(2000),
  'tokens.txt': 'a 0\nb 1\n<blk> 2\n',
}

export function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex')
}

export function hasCommand(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** A `.tar.bz2` made by system tar: `<top>/<files>` (or the files at the root when `top` is null). */
export function makeTarBz2(
  workDir: string,
  top: string | null,
  files: Record<string, string | Buffer>,
): Buffer {
  const source = path.join(workDir, `src-${Math.random().toString(36).slice(2)}`)
  const root = top === null ? source : path.join(source, top)
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true })
    writeFileSync(path.join(root, name), content)
  }
  const archive = `${source}.tar.bz2`
  execFileSync('tar', ['-cjf', archive, '-C', source, top ?? '.'])
  return readFileSync(archive)
}

/** A `.zip` made by system zip: `<top>/<files>`. */
export function makeZip(workDir: string, top: string, files: Record<string, string | Buffer>): Buffer {
  const source = path.join(workDir, `zsrc-${Math.random().toString(36).slice(2)}`)
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(source, top, name)), { recursive: true })
    writeFileSync(path.join(source, top, name), content)
  }
  const archive = `${source}.zip`
  execFileSync('zip', ['-qr', archive, top], { cwd: source })
  return readFileSync(archive)
}

export interface RawEntry {
  name: string
  data?: string
  /** Makes the entry a symbolic link to this target. */
  symlink?: string
}

/** Tar bytes written by hand (ustar), so entries can carry names system tar would never produce. */
export function rawTarBz2(workDir: string, entries: RawEntry[]): Buffer {
  const blocks: Buffer[] = []
  for (const entry of entries) {
    const data = Buffer.from(entry.symlink === undefined ? (entry.data ?? '') : '')
    const header = Buffer.alloc(512)
    header.write(entry.name, 0, 100, 'utf8')
    header.write('0000644\0', 100)
    header.write('0000000\0', 108)
    header.write('0000000\0', 116)
    header.write(`${data.length.toString(8).padStart(11, '0')}\0`, 124)
    header.write('00000000000\0', 136)
    header.write('        ', 148)
    header.write(entry.symlink === undefined ? '0' : '2', 156)
    if (entry.symlink !== undefined) header.write(entry.symlink, 157, 100, 'utf8')
    header.write('ustar\0', 257)
    header.write('00', 263)
    let sum = 0
    for (const byte of header) sum += byte
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148)
    blocks.push(header, data, Buffer.alloc((512 - (data.length % 512)) % 512))
  }
  blocks.push(Buffer.alloc(1024))
  const tarPath = path.join(workDir, `raw-${Math.random().toString(36).slice(2)}.tar`)
  writeFileSync(tarPath, Buffer.concat(blocks))
  return execFileSync('bzip2', ['-c', tarPath], { maxBuffer: 64 * 1024 * 1024 })
}

/** Zip bytes written by hand (stored entries), so entries can be links or escape their folder. */
export function rawZip(entries: RawEntry[]): Buffer {
  const locals: Buffer[] = []
  const centrals: Buffer[] = []
  let offset = 0
  for (const entry of entries) {
    const name = Buffer.from(entry.name)
    const data = Buffer.from(entry.symlink ?? entry.data ?? '')
    const crc = crc32(data)
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(10, 4)
    local.writeUInt32LE(crc, 14)
    local.writeUInt32LE(data.length, 18)
    local.writeUInt32LE(data.length, 22)
    local.writeUInt16LE(name.length, 26)
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0)
    central.writeUInt16LE(0x0314, 4) // made by Unix, so the external attributes carry a file mode
    central.writeUInt16LE(10, 6)
    central.writeUInt32LE(crc, 16)
    central.writeUInt32LE(data.length, 20)
    central.writeUInt32LE(data.length, 24)
    central.writeUInt16LE(name.length, 28)
    const mode = entry.symlink === undefined ? 0o100644 : 0o120777
    central.writeUInt32LE((mode << 16) >>> 0, 38)
    central.writeUInt32LE(offset, 42)
    locals.push(local, name, data)
    centrals.push(central, name)
    offset += local.length + name.length + data.length
  }
  const directory = Buffer.concat(centrals)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(entries.length, 8)
  end.writeUInt16LE(entries.length, 10)
  end.writeUInt32LE(directory.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...locals, directory, end])
}

export interface ServedFile {
  body: Buffer
  /** Close the connection after this many body bytes, for the first `dropTimes` requests (default 1). */
  dropAfter?: number
  dropTimes?: number
  /** Awaited between sending the first `dropAfter` bytes and closing the connection. */
  beforeDrop?: () => Promise<void>
  /** Answer every request with the whole file (200), as a server without Range support does. */
  ignoreRange?: boolean
  etag?: string
  status?: number
}

export interface RequestRecord {
  url: string
  range: string | undefined
  ifRange: string | undefined
}

export interface TestServer {
  url(pathname: string): string
  requests: RequestRecord[]
  files: Map<string, ServedFile>
  close(): Promise<void>
}

/** An HTTP server on 127.0.0.1 that serves `files` by path, honouring `Range` unless told not to. */
export async function startServer(): Promise<TestServer> {
  const files = new Map<string, ServedFile>()
  const requests: RequestRecord[] = []
  const drops = new Map<string, number>()
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const pathname = new URL(req.url ?? '/', 'http://x').pathname
    requests.push({
      url: pathname,
      range: req.headers.range,
      ifRange: req.headers['if-range'] as string | undefined,
    })
    const file = files.get(pathname)
    if (!file) {
      res.writeHead(404).end('not found')
      return
    }
    if (file.status !== undefined) {
      res.writeHead(file.status).end()
      return
    }
    const headers: Record<string, string> = file.etag ? { etag: file.etag } : {}
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '')
    let start = 0
    if (range && !file.ignoreRange) {
      start = Number(range[1])
      if (start >= file.body.length) {
        res.writeHead(416, { 'content-range': `bytes */${file.body.length}` }).end()
        return
      }
      headers['content-range'] = `bytes ${start}-${file.body.length - 1}/${file.body.length}`
    }
    const slice = file.body.subarray(start)
    res.writeHead(start > 0 ? 206 : 200, { ...headers, 'content-length': String(slice.length) })
    const dropped = drops.get(pathname) ?? 0
    if (file.dropAfter !== undefined && dropped < (file.dropTimes ?? 1)) {
      drops.set(pathname, dropped + 1)
      res.write(slice.subarray(0, file.dropAfter), () => {
        const hold = file.beforeDrop?.() ?? Promise.resolve()
        hold.finally(() => res.socket?.destroy())
      })
      return
    }
    res.end(slice)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: (pathname) => `http://127.0.0.1:${port}${pathname}`,
    requests,
    files,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** Resolves once `file` has at least `bytes` bytes (the client stored what the server sent so far). */
export async function waitForSize(file: string, bytes: number): Promise<void> {
  for (;;) {
    let size = 0
    try {
      size = statSync(file).size
    } catch {
      // not created yet
    }
    if (size >= bytes) return
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

/** A catalog entry for a test archive served by `server` at `/<id>.<ext>`. */
export function testEntry(
  server: TestServer,
  id: string,
  archive: CatalogEntry['archive'],
  body: Buffer,
  overrides: Partial<CatalogEntry> = {},
): CatalogEntry {
  const ext = archive === 'onnx' ? 'onnx' : archive
  return {
    id,
    family: 'nemo-transducer',
    displayName: `Test model ${id}`,
    languages: ['en'],
    url: server.url(`/${id}.${ext}`),
    archive,
    sizeBytes: body.length,
    sizeExact: true,
    sha256: sha256(body),
    checksumSource: 'computed by the test',
    files: Object.keys(MODEL_FILES),
    customWords: true,
    engine: 'sherpa-onnx',
    license: 'test',
    hints: { modelType: 'nemo_transducer', featureDim: 80, tokens: 'tokens.txt' },
    ...overrides,
  }
}

/** A logger that keeps what it was told. */
export function memoryLogger() {
  const lines: Array<{ level: string; msg: string | undefined; obj: unknown }> = []
  const log = (level: string) => (obj: unknown, msg?: string) => {
    lines.push({ level, msg, obj })
  }
  return { lines, debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') }
}
