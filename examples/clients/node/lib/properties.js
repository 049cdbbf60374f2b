// A role's Kafka client settings (.properties, as the Java client reads them) turned into kafkajs options.
import { readFileSync } from 'node:fs'

/** Parse the .properties format: key=value or key: value, # and ! comments, backslash line continuations. */
export function parseProperties(text) {
  const props = {}
  let logical = ''
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/^[ \t\f]+/, '')
    if (logical === '' && (line === '' || line[0] === '#' || line[0] === '!')) continue
    if (line.endsWith('\\') && !line.endsWith('\\\\')) {
      logical += line.slice(0, -1)
      continue
    }
    logical += line
    const [key, value] = splitProperty(logical)
    props[key] = value
    logical = ''
  }
  if (logical !== '') {
    const [key, value] = splitProperty(logical)
    props[key] = value
  }
  return props
}

function splitProperty(line) {
  const match = /^((?:[^=:\s\\]|\\.)*)[ \t]*[=: \t]?[ \t]*(.*)$/.exec(line)
  return [unescape(match[1]), unescape(match[2])]
}

function unescape(text) {
  return text.replace(/\\(.)/g, (_, c) => ({ t: '\t', n: '\n' })[c] ?? c)
}

export function loadProperties(path) {
  return parseProperties(readFileSync(path, 'utf8'))
}

/** username and password out of a sasl.jaas.config value. */
export function jaasCredentials(jaas = '') {
  const fields = {}
  for (const [, name, value] of jaas.matchAll(/(\w+)\s*=\s*"((?:[^"\\]|\\.)*)"/g)) {
    fields[name] = value.replace(/\\"/g, '"')
  }
  if (!fields.username) throw new Error('sasl.jaas.config has no username="..."')
  return { username: fields.username, password: fields.password ?? '' }
}

const MECHANISMS = { PLAIN: 'plain', 'SCRAM-SHA-256': 'scram-sha-256', 'SCRAM-SHA-512': 'scram-sha-512' }

/** kafkajs client options: brokers, TLS with a PEM truststore, SASL (PLAIN or SCRAM) when configured. */
export function kafkaOptions(props) {
  const servers = props['bootstrap.servers']
  if (!servers) throw new Error('bootstrap.servers is missing')
  const options = { brokers: servers.split(',').map(s => s.trim()) }
  const protocol = (props['security.protocol'] || 'PLAINTEXT').toUpperCase()
  if (!['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'].includes(protocol)) {
    throw new Error(`security.protocol ${protocol} is not one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL`)
  }
  if (protocol.endsWith('SSL')) options.ssl = tlsOptions(props)
  if (protocol.startsWith('SASL_')) {
    const name = (props['sasl.mechanism'] || 'PLAIN').toUpperCase()
    const mechanism = MECHANISMS[name]
    if (!mechanism) throw new Error(`sasl.mechanism ${name} is not one of ${Object.keys(MECHANISMS).join(', ')}`)
    options.sasl = { mechanism, ...jaasCredentials(props['sasl.jaas.config']) }
  }
  return options
}

function tlsOptions(props) {
  const location = props['ssl.truststore.location']
  if (!location) return true // the system's roots
  const type = (props['ssl.truststore.type'] || 'PEM').toUpperCase()
  if (type !== 'PEM') throw new Error(`ssl.truststore.type ${type}: only PEM truststores are read`)
  const tls = { ca: [readFileSync(location, 'utf8')] }
  // As in the Java client, an empty value checks the chain against the truststore but not the host name.
  if (props['ssl.endpoint.identification.algorithm'] === '') tls.checkServerIdentity = () => undefined
  return tls
}
