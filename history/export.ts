/**
 * The formats of GET /v1/history/export: JSON, CSV and Markdown, written entry by entry so an export streams
 * (the route reads the history in pages and sends each page's text as it is made).
 */
import type { HistoryEntry } from './schemas.ts'

export const EXPORT_FORMATS = ['json', 'csv', 'md'] as const
export type ExportFormat = (typeof EXPORT_FORMATS)[number]

export interface ExportWriter {
  contentType: string
  extension: string
  /** Text before the first entry. */
  start(exportedAt: Date): string
  /** One entry; `index` counts from 0. */
  entry(entry: HistoryEntry, index: number): string
  /** Text after the last entry. */
  end(): string
}

const CSV_COLUMNS = [
  'id',
  'timestamp',
  'appName',
  'windowTitle',
  'rawText',
  'finalText',
  'characterCount',
  'wasAIProcessed',
  'aiProcessingError',
] as const

/**
 * One CSV cell (RFC 4180: quoted when it holds a quote, comma or line break, quotes doubled). A text that a
 * spreadsheet would run as a formula (starting with = + - @, or a tab or carriage return that hides one)
 * gets a leading apostrophe, so opening the export never runs what someone dictated.
 */
export function csvCell(value: string | number | boolean | null): string {
  if (value === null) return ''
  let text = String(value)
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

/**
 * Text shown as Markdown text, never as markup: characters that start inline markup (emphasis, code, links,
 * HTML, entities, tables, strike-through) are backslash-escaped everywhere, and those that start a block
 * (heading, quote, list, rule, setext underline) at the start of a line.
 */
export function markdownText(text: string): string {
  return text
    .split(/\r\n|\r|\n/)
    .map((line) =>
      line
        .replace(/[\\`*_[\]<>|~&]/g, '\\$&')
        .replace(/^(\s*)([#>+=-])/, '$1\\$2')
        .replace(/^(\s*\d+)([.)])/, '$1\\$2'),
    )
    .join('  \n')
}

const json: ExportWriter = {
  contentType: 'application/json; charset=utf-8',
  extension: 'json',
  start: (exportedAt) => `{"exportedAt":${JSON.stringify(exportedAt.toISOString())},"items":[`,
  entry: (entry, index) => `${index === 0 ? '\n' : ',\n'}${JSON.stringify(entry)}`,
  end: () => '\n]}\n',
}

const csv: ExportWriter = {
  contentType: 'text/csv; charset=utf-8',
  extension: 'csv',
  // The byte order mark makes spreadsheets read the file as UTF-8.
  start: () => `\ufeff${CSV_COLUMNS.join(',')}\r\n`,
  entry: (entry) => `${CSV_COLUMNS.map((column) => csvCell(entry[column])).join(',')}\r\n`,
  end: () => '',
}

const markdown: ExportWriter = {
  contentType: 'text/markdown; charset=utf-8',
  extension: 'md',
  start: (exportedAt) => `# dictum history\n\nExported ${exportedAt.toISOString()}.\n`,
  entry: (entry) => {
    const where = [entry.appName, entry.windowTitle]
      .filter((part) => part !== '')
      .map((part) => markdownText(part.replace(/\s+/g, ' ')))
      .join(' — ')
    const lines = [
      '',
      `## ${entry.timestamp}${where ? ` · ${where}` : ''}`,
      '',
      markdownText(entry.finalText),
      '',
    ]
    if (entry.rawText !== entry.finalText) lines.push(`- Raw: ${markdownText(entry.rawText)}`)
    lines.push(`- AI processed: ${entry.wasAIProcessed ? 'yes' : 'no'}`)
    if (entry.aiProcessingError !== null) lines.push(`- AI error: ${markdownText(entry.aiProcessingError)}`)
    lines.push(`- Id: ${entry.id}`)
    return `${lines.join('\n')}\n`
  },
  end: () => '',
}

export const EXPORT_WRITERS: Record<ExportFormat, ExportWriter> = { json, csv, md: markdown }
