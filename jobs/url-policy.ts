/**
 * Which hosts a job may fetch audio from (`jobs.urlAllow`, `jobs.urlDeny`), so that URL jobs are no scanner
 * of this machine's ports and no GET oracle for services bound to loopback (dictum itself, Redis).
 *
 * A pattern is a host name (`media.example.com`), any name below a domain (`*.example.com`), an IP address
 * (`127.0.0.1`, `::1`) or a range (`10.0.0.0/8`, `fd00::/8`). A URL is refused when its name or any address
 * it resolves to matches `urlDeny`; when `urlAllow` is not empty, its name or its addresses must match it;
 * and loopback, link-local and unspecified addresses are refused unless `urlAllow` names them (by name or
 * address). The check is made on the addresses the connection uses (the `lookup` of each request, redirects
 * included), so a name that resolves elsewhere on the second look gets nowhere; and it is made before any
 * connection, so a refused URL is answered the same whatever listens there.
 */

import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { BlockList, isIP, type LookupFunction } from 'node:net'
import { redactUrl } from '../lib/secrets.ts'
import { jobsErrors } from './errors.ts'

/** Addresses no job reaches unless allowed: loopback, link-local, unspecified. */
const SPECIAL = new BlockList()
SPECIAL.addSubnet('127.0.0.0', 8, 'ipv4')
SPECIAL.addSubnet('169.254.0.0', 16, 'ipv4')
SPECIAL.addSubnet('0.0.0.0', 8, 'ipv4')
SPECIAL.addAddress('::1', 'ipv6')
SPECIAL.addAddress('::', 'ipv6')
SPECIAL.addSubnet('fe80::', 10, 'ipv6')

interface HostRules {
  names: Set<string>
  domains: string[]
  addresses: BlockList
}

function rulesOf(patterns: readonly string[]): HostRules {
  const rules: HostRules = { names: new Set(), domains: [], addresses: new BlockList() }
  for (const raw of patterns) {
    const pattern = raw.trim().toLowerCase()
    const [address, prefix] = pattern.split('/')
    const family = isIP(address ?? '')
    if (family !== 0) {
      const type = family === 4 ? 'ipv4' : 'ipv6'
      if (prefix === undefined) rules.addresses.addAddress(address as string, type)
      else rules.addresses.addSubnet(address as string, Number(prefix), type)
    } else if (pattern.startsWith('*.')) rules.domains.push(pattern.slice(1))
    else rules.names.add(pattern)
  }
  return rules
}

export class UrlPolicy {
  readonly #allow: HostRules
  readonly #deny: HostRules
  readonly #allowList: boolean

  constructor(allow: readonly string[], deny: readonly string[]) {
    this.#allow = rulesOf(allow)
    this.#deny = rulesOf(deny)
    this.#allowList = allow.length > 0
  }

  /**
   * Refuses (AUDIO_URL_REFUSED) the URL by what can be told without a DNS query: its name, or its address
   * when the host is one. `lookup` checks the addresses of a name.
   */
  checkUrl(url: URL): void {
    const host = hostOf(url)
    const reason = isIP(host) !== 0 ? this.#addressProblem(host, host) : this.#nameProblem(host)
    if (reason) throw refused(url, reason)
  }

  /** A `lookup` for http.request that resolves `url`'s name and refuses it if any address is refused. */
  lookupFor(url: URL): LookupFunction {
    return (hostname, options, callback) => {
      dnsLookup(hostname, { ...options, all: true }, (error, found) => {
        if (error) return callback(error, '', 0)
        const addresses = found as LookupAddress[]
        for (const { address } of addresses) {
          const reason = this.#addressProblem(address, hostname.toLowerCase())
          if (reason) return callback(refused(url, reason), '', 0)
        }
        if (options.all)
          return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses)
        const first = addresses[0] as LookupAddress
        callback(null, first.address, first.family)
      })
    }
  }

  #nameProblem(name: string): string | null {
    if (matchesName(this.#deny, name)) return `${name} is in jobs.urlDeny`
    if (name === 'localhost' || name.endsWith('.localhost'))
      return matchesName(this.#allow, name) ? null : `${name} is loopback (allow it in jobs.urlAllow)`
    if (this.#allowList && !matchesName(this.#allow, name) && !this.#allowsAnAddress())
      return `${name} is not in jobs.urlAllow`
    return null
  }

  #addressProblem(raw: string, name: string): string | null {
    const address = unmapped(raw)
    const type = isIP(address) === 4 ? 'ipv4' : 'ipv6'
    if (this.#deny.addresses.check(address, type)) return `${address} is in jobs.urlDeny`
    if (matchesName(this.#deny, name)) return `${name} is in jobs.urlDeny`
    const allowed = this.#allow.addresses.check(address, type) || matchesName(this.#allow, name)
    if (SPECIAL.check(address, type) && !allowed)
      return `${address} is a loopback, link-local or unspecified address (allow it in jobs.urlAllow)`
    if (this.#allowList && !allowed) return `${address === name ? address : name} is not in jobs.urlAllow`
    return null
  }

  /** With only address patterns allowed, a name can only be judged by what it resolves to. */
  #allowsAnAddress(): boolean {
    return this.#allow.names.size === 0 && this.#allow.domains.length === 0
  }
}

function matchesName(rules: HostRules, name: string): boolean {
  return rules.names.has(name) || rules.domains.some((domain) => name.endsWith(domain))
}

/** The URL's host as a name or an address: lower case, without the brackets of an IPv6 address. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase()
}

/** `::ffff:127.0.0.1` (an IPv4 address in IPv6 clothing) is judged as `127.0.0.1`. */
function unmapped(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1]
  if (mapped) return mapped
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address)
  if (!hex) return address
  const high = Number.parseInt(hex[1] as string, 16)
  const low = Number.parseInt(hex[2] as string, 16)
  return [high >> 8, high & 255, low >> 8, low & 255].join('.')
}

function refused(url: URL, reason: string) {
  return jobsErrors.AUDIO_URL_REFUSED(`${redactUrl(url.href)} is not allowed: ${reason}.`)
}
