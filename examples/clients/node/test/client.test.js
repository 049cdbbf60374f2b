import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { answersTopic, parseAnswer, REJECTED, REQUESTED, requestMessage, SETTLED } from '../lib/client.js'
import { crc32Partitioner, murmur2, partitionOf } from '../lib/partitioners.js'
import { jaasCredentials, kafkaOptions, parseProperties } from '../lib/properties.js'

// The conformance kit's language-neutral vectors: where the Java client and librdkafka put each key.
const vectors = JSON.parse(readFileSync(new URL('../../../../docs/contract/conformance/partitioning.json', import.meta.url)))

test('the murmur2 partitioner puts each key where the Java client does', () => {
  assert.ok(vectors.keys.length >= 8)
  for (const { key, murmur2: expected } of vectors.keys) {
    assert.equal(partitionOf(murmur2, key, vectors.partitions), expected, key)
  }
})

test("the crc32 partitioner puts each key where librdkafka's consistent partitioner does", () => {
  for (const { key, crc32: expected } of vectors.keys) {
    assert.equal(partitionOf(crc32Partitioner, key, vectors.partitions), expected, key)
  }
  assert.ok(vectors.keys.some(v => v.crc32 !== v.murmur2), 'no key where the partitioners disagree')
})

test('properties are parsed as the Java client reads them, SASL and TLS included', () => {
  const props = parseProperties([
    '# a role', '! comment', 'bootstrap.servers = b1:9093,b2:9093', 'security.protocol: SASL_SSL',
    'sasl.mechanism=SCRAM-SHA-512',
    'sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \\',
    '    username="game-client" password="s3cr\\:et=1";',
  ].join('\n'))
  assert.equal(props['bootstrap.servers'], 'b1:9093,b2:9093')
  assert.equal(props['security.protocol'], 'SASL_SSL')
  assert.deepEqual(jaasCredentials(props['sasl.jaas.config']), { username: 'game-client', password: 's3cr:et=1' })
  assert.deepEqual(kafkaOptions(props), {
    brokers: ['b1:9093', 'b2:9093'], ssl: true,
    sasl: { mechanism: 'scram-sha-512', username: 'game-client', password: 's3cr:et=1' },
  })
  assert.deepEqual(kafkaOptions({ 'bootstrap.servers': '127.0.0.1:9092' }), { brokers: ['127.0.0.1:9092'] })
})

test('bad properties are refused', () => {
  const bad = [
    {}, { 'bootstrap.servers': 'b:1', 'security.protocol': 'KERBEROS' },
    { 'bootstrap.servers': 'b:1', 'security.protocol': 'SASL_PLAINTEXT', 'sasl.jaas.config': 'nothing' },
    { 'bootstrap.servers': 'b:1', 'security.protocol': 'SSL', 'ssl.truststore.location': '/nonexistent.pem' },
    { 'bootstrap.servers': 'b:1', 'security.protocol': 'SSL', 'ssl.truststore.location': '/x', 'ssl.truststore.type': 'JKS' },
  ]
  for (const props of bad) assert.throws(() => kafkaOptions(props), undefined, JSON.stringify(props))
})

test('the request is a structured CloudEvent keyed by the player', () => {
  const spin = { request_id: 'r-1', player_id: 'p-1', game: 'rising-joker', stake_minor: 100, currency: 'EUR', session_token: 't' }
  const message = requestMessage(spin, 'test', new Date(Date.UTC(2026, 11, 1, 10)))
  const event = JSON.parse(message.value)
  assert.equal(message.key, 'p-1')
  assert.equal(message.headers['content-type'], 'application/cloudevents+json')
  assert.deepEqual({ ...event, id: undefined }, {
    specversion: '1.0', id: undefined, source: 'test', type: REQUESTED, time: '2026-12-01T10:00:00.000Z',
    subject: 'p-1', datacontenttype: 'application/json', data: spin,
  })
})

const answer = (id, type, requestId, data = {}) =>
  JSON.stringify({ specversion: '1.0', id, type, data: { request_id: requestId, player_id: 'p-1', ...data } })

test('only answers to our request are taken, and a conflict only when it names our spin', () => {
  const spin = { request_id: '11111111-1111-4111-8111-111111111111', game: 'rising-joker', stake_minor: 100 }
  const settled = parseAnswer(answer('e1', SETTLED, spin.request_id, { game: 'rising-joker', stake_minor: 100, win_minor: 40 }), spin)
  assert.equal(settled.settled, true)
  assert.equal(settled.eventId, 'e1')
  assert.equal(settled.win_minor, 40)
  assert.equal(parseAnswer(answer('e2', SETTLED, '22222222-2222-4222-8222-222222222222'), spin), null)
  assert.equal(parseAnswer(answer('e3', 'reelstream.spin.accepted.v1', spin.request_id), spin), null)
  assert.equal(parseAnswer('not json ' + spin.request_id, spin), null)
  const original = { game: 'rising-joker', stake_minor: 50, win_minor: 0 }
  assert.equal(parseAnswer(answer('e6', SETTLED, spin.request_id, original), spin), null, 'the first spin under our id')
  const theirs = { code: 'DUPLICATE_CONFLICT', game: 'rising-joker', stake_minor: 200 }
  assert.equal(parseAnswer(answer('e4', REJECTED, spin.request_id, theirs), spin), null)
  const ours = parseAnswer(answer('e5', REJECTED, spin.request_id, { ...theirs, stake_minor: 100 }), spin)
  assert.equal(ours.code, 'DUPLICATE_CONFLICT')
})

test('answers are read from spin.events unless an answers topic is configured', () => {
  assert.equal(answersTopic({}), 'spin.events')
  assert.equal(answersTopic(), 'spin.events')
  assert.equal(answersTopic({ answersTopic: 'spin.answers.demo-a' }), 'spin.answers.demo-a')
})
