/**
 * jobs.urlAllow / jobs.urlDeny (jobs/url-policy.ts, issue 28 item 10): what is refused by name or address
 * without a connection, and what the `lookup` of a request refuses once a name is resolved (the addresses
 * the connection would use, so a name pointing at loopback is caught whatever it is called).
 */
import t from 'tap'
import { isDictumError } from '../../errors/catalogue.ts'
import { UrlPolicy } from '../../jobs/url-policy.ts'

function byName(policy: UrlPolicy, url: string): string | null {
  try {
    policy.checkUrl(new URL(url))
    return null
  } catch (error) {
    if (!isDictumError(error)) throw error
    return error.message
  }
}

/** Resolves `url`'s host through the policy's lookup: the address it gives, or the refusal. */
function resolved(policy: UrlPolicy, url: string): Promise<string> {
  const parsed = new URL(url)
  return new Promise((resolve) => {
    policy.lookupFor(parsed)(parsed.hostname, { all: false }, (error, address) =>
      resolve(error ? error.message : String(address)),
    )
  })
}

t.test('by name or address, before any DNS query', async (t) => {
  const open = new UrlPolicy([], [])
  t.equal(byName(open, 'http://media.example.com/a.wav'), null, 'a public name')
  t.equal(byName(open, 'http://192.168.1.20/a.wav'), null, 'a LAN address is not special')
  for (const url of ['http://127.0.0.1/', 'http://[::1]/', 'http://localhost/', 'http://[::ffff:7f00:1]/']) {
    t.match(byName(open, url), /is not allowed: .*(loopback)/, url)
  }
  const allowLoopback = new UrlPolicy(['127.0.0.1', 'localhost'], [])
  t.equal(byName(allowLoopback, 'http://127.0.0.1:8080/a.wav'), null)
  t.equal(byName(allowLoopback, 'http://localhost/a.wav'), null)
  t.match(byName(allowLoopback, 'http://127.0.0.2/a.wav'), /loopback/, 'only the address allowed')
  t.match(byName(allowLoopback, 'http://media.example.com/'), /media\.example\.com is not in jobs\.urlAllow/)
  const domains = new UrlPolicy(['*.example.com', '10.0.0.0/8'], ['bad.example.com'])
  t.equal(byName(domains, 'https://cdn.example.com/a.mp3'), null)
  t.equal(byName(domains, 'https://10.2.3.4/a.mp3'), null)
  t.match(byName(domains, 'https://bad.example.com/a.mp3'), /bad\.example\.com is in jobs\.urlDeny/)
  t.match(byName(domains, 'https://example.org/a.mp3'), /not in jobs\.urlAllow/)
  t.match(byName(new UrlPolicy([], ['10.0.0.0/8']), 'http://10.9.9.9/'), /10\.9\.9\.9 is in jobs\.urlDeny/)
})

t.test("a name's resolved addresses are checked at connection time", async (t) => {
  // `vm`/`localhost` resolve to 127.0.0.1 here; any name would, with a hostile DNS.
  const open = new UrlPolicy([], [])
  t.match(await resolved(open, 'http://localhost/'), /is not allowed: 127\.0\.0\.1 is a loopback/)
  t.equal(await resolved(new UrlPolicy(['127.0.0.1'], []), 'http://localhost/'), '127.0.0.1')
  t.match(
    await resolved(new UrlPolicy(['127.0.0.0/8'], ['127.0.0.1']), 'http://localhost/'),
    /127\.0\.0\.1 is in jobs\.urlDeny/,
  )
})
