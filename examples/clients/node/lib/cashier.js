// An operator's cashier (role cashier.<operator>): one deposit out on wallet.commands, signed with the operator's own
// cashier key, its result back from wallet.answers.<operator>, the only wallet topic it may read. The wallet binds the
// deposit to the operator whose cashier key signed it (docs/security.md, "Per-operator cashier answers").
import { createHash, createPrivateKey, randomUUID, sign } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { exchangeOnce, parseEvent } from './client.js'

export const DEPOSIT = 'reelstream.wallet.deposit.v1'
export const DEPOSITED = 'reelstream.wallet.deposited.v1'
export const COMMAND_REJECTED = 'reelstream.wallet.command-rejected.v1'
// The logical name a signature covers (without the deployment's topic prefix).
export const COMMANDS_TOPIC = 'wallet.commands'

const RECORD_DOMAIN = Buffer.from('reelstream.record.v1\0')
const TRANSACTION_DOMAIN = Buffer.from('reelstream.transaction.v1\0')
// Headers no signature covers: the signature's own and the marker of a re-driven dead letter.
const UNCOVERED = new Set(['reelstream-sig-kid', 'reelstream-sig', 'reelstream-sig-path', 'reelstream-redrive'])
// An Ed25519 private key as PKCS#8 DER is this prefix and the 32-byte seed (RFC 8410).
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex')

export const walletAnswersTopic = operator => `wallet.answers.${operator}`
export const cashierRole = operator => `cashier.${operator}`

/** A writer's key file as `reelstream infra up` writes it ($REELSTREAM_SIGNING_DIR/<writer>.key.json). */
export function loadSigningKey(path) {
  const file = JSON.parse(readFileSync(path, 'utf8'))
  const seed = Buffer.from(file.private_key ?? '', 'base64')
  if (seed.length !== 32 || !file.writer || !file.key_id) throw new Error(`${path} is not a writer's Ed25519 key file`)
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' })
  return { writer: file.writer, keyId: file.key_id, privateKey }
}

// A key or value: a 4-byte big-endian length and its bytes; an absent one is ff ff ff ff.
function field(bytes) {
  if (bytes == null) return Buffer.from([0xff, 0xff, 0xff, 0xff])
  const length = Buffer.alloc(4)
  length.writeUInt32BE(bytes.length)
  return Buffer.concat([length, bytes])
}

/** The platform's record digest (shared/signing.py); `headers` as kafkajs takes them ({ name: string | Buffer }). */
export function recordDigest(logicalTopic, key, value, headers) {
  const covered = Object.entries(headers)
    .filter(([name]) => !UNCOVERED.has(name))
    .map(([name, content]) => [Buffer.from(name), Buffer.from(content ?? '')])
    .sort(([a, x], [b, y]) => Buffer.compare(a, b) || Buffer.compare(x, y))
  const parts = [RECORD_DOMAIN, field(Buffer.from(logicalTopic)), field(key), field(value)]
  for (const [name, content] of covered) parts.push(field(name), field(content))
  return createHash('sha256').update(Buffer.concat(parts)).digest()
}

/** The message's headers with the key id, the signature and the (empty) inclusion path: a transaction of its own. */
export function signAlone(signingKey, logicalTopic, message) {
  const digest = recordDigest(logicalTopic, Buffer.from(message.key), Buffer.from(message.value), message.headers)
  const root = createHash('sha256').update(Buffer.concat([Buffer.from([0]), digest])).digest()
  const signature = sign(null, Buffer.concat([TRANSACTION_DOMAIN, root]), signingKey.privateKey)
  return {
    ...message,
    headers: {
      ...message.headers, 'reelstream-sig-kid': signingKey.keyId, 'reelstream-sig': signature,
      'reelstream-sig-path': Buffer.alloc(0),
    },
  }
}

/** The signed CloudEvent of a deposit (key = player id; the writer id is the key's). */
export function depositMessage(deposit, signingKey, source, now = new Date()) {
  const event = {
    specversion: '1.0', id: randomUUID(), source, type: DEPOSIT, time: now.toISOString(), subject: deposit.player_id,
    datacontenttype: 'application/json', data: deposit,
  }
  const message = {
    key: deposit.player_id, value: JSON.stringify(event),
    headers: { 'content-type': 'application/cloudevents+json', 'reelstream-writer': signingKey.writer },
  }
  return signAlone(signingKey, COMMANDS_TOPIC, message)
}

/** The wallet's result of our deposit (Deposited, or CommandRejected of a deposit) in an answer record, or null. */
export function parseCashierAnswer(value, transactionId) {
  if (!value.includes(transactionId)) return null
  const event = parseEvent(value)
  const data = event?.data
  if (event === null) return null
  const refusal = event.type === COMMAND_REJECTED && data?.command_type === DEPOSIT
  if ((event.type !== DEPOSITED && !refusal) || data?.transaction_id !== transactionId) return null
  return { eventId: event.id, deposited: event.type === DEPOSITED, ...data }
}

/**
 * Sign and send one deposit, and wait for its result on config.answersTopic (wallet.answers.<operator>); the identical
 * message again after each timeout (a repeat is answered with the first result). Resolves { answer, attempts,
 * duplicates }; rejects with NoAnswer after `attempts` sends.
 */
export async function deposit(config, data, signingKey) {
  if (!config.answersTopic) throw new Error('a cashier reads its results from wallet.answers.<operator>: set answersTopic')
  return exchangeOnce(config, {
    answers: config.answersTopic, requestTopic: COMMANDS_TOPIC,
    message: depositMessage(data, signingKey, 'reelstream-node-example'),
    parse: value => parseCashierAnswer(value, data.transaction_id), what: `deposit ${data.transaction_id}`,
  })
}
