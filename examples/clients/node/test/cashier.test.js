import assert from 'node:assert/strict'
import { createHash, createPublicKey, verify } from 'node:crypto'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import {
  COMMAND_REJECTED, DEPOSIT, DEPOSITED, deposit, depositMessage, loadSigningKey, parseCashierAnswer, recordDigest,
  signAlone,
} from '../lib/cashier.js'

// The conformance kit's cashier signature vector, made by shared/signing.py, and its key written as a key file.
const vector = JSON.parse(readFileSync(new URL('../../../../docs/contract/conformance/cashier-signature.json', import.meta.url)))

function vectorKey() {
  const path = join(mkdtempSync(join(tmpdir(), 'reelcashier-')), 'cashier.demo-a.key.json')
  writeFileSync(path, JSON.stringify(vector.key_file), { mode: 0o600 })
  return loadSigningKey(path)
}

test('a record signed alone carries the digest and the signature the platform makes', () => {
  const key = vectorKey()
  const message = { key: vector.key, value: vector.value, headers: Object.fromEntries(vector.headers) }
  const digest = recordDigest(vector.logical_topic, Buffer.from(message.key), Buffer.from(message.value), message.headers)
  assert.equal(digest.toString('hex'), vector.digest_hex)
  const signed = signAlone(key, vector.logical_topic, message)
  assert.equal(signed.headers['reelstream-sig'].toString('base64'), vector.signature_base64)
  assert.equal(signed.headers['reelstream-sig-kid'], vector.key_file.key_id)
  assert.equal(signed.headers['reelstream-sig-path'].length, 0)
  const again = recordDigest(vector.logical_topic, Buffer.from(signed.key), Buffer.from(signed.value), signed.headers)
  assert.deepEqual(again, digest, "the signature's own headers changed the digest")
})

test('a deposit names its operator, carries its cashier as the writer and verifies under its key', () => {
  const key = vectorKey()
  const data = { transaction_id: 'tx-1', player_id: 'p-1', amount_minor: 2500, currency: 'EUR', operator_id: 'demo-a' }
  const message = depositMessage(data, key, 'test', new Date('2026-12-02T12:00:00Z'))
  const event = JSON.parse(message.value)
  assert.equal(message.key, 'p-1')
  assert.equal(event.type, DEPOSIT)
  assert.deepEqual(event.data, data)
  assert.equal(message.headers['reelstream-writer'], 'cashier.demo-a')
  // The signature covers the logical topic (wallet.commands), not the deployment's prefixed name.
  const digest = recordDigest('wallet.commands', Buffer.from(message.key), Buffer.from(message.value), message.headers)
  const root = createHash('sha256').update(Buffer.concat([Buffer.from([0]), digest])).digest()
  const signed = Buffer.concat([Buffer.from('reelstream.transaction.v1\0'), root])
  assert.ok(verify(null, signed, createPublicKey(key.privateKey), message.headers['reelstream-sig']))
})

const answer = (id, type, transactionId, extra = {}) =>
  JSON.stringify({ specversion: '1.0', id, type, data: { transaction_id: transactionId, player_id: 'p-1', ...extra } })

test('only the result of our deposit is taken', () => {
  const ours = '33333333-3333-4333-8333-333333333333'
  const deposited = parseCashierAnswer(answer('e1', DEPOSITED, ours, { balance_after_minor: 2500 }), ours)
  assert.equal(deposited.deposited, true)
  assert.equal(deposited.balance_after_minor, 2500)
  assert.equal(deposited.eventId, 'e1')
  const refused = parseCashierAnswer(answer('e2', COMMAND_REJECTED, ours, { command_type: DEPOSIT, code: 'OPERATOR_MISMATCH' }), ours)
  assert.equal(refused.deposited, false)
  assert.equal(refused.code, 'OPERATOR_MISMATCH')
  assert.equal(parseCashierAnswer(answer('e3', DEPOSITED, '44444444-4444-4444-8444-444444444444'), ours), null)
  const withdrawal = { command_type: 'reelstream.wallet.withdraw.v1', code: 'INSUFFICIENT_FUNDS' }
  assert.equal(parseCashierAnswer(answer('e4', COMMAND_REJECTED, ours, withdrawal), ours), null)
})

test('a bad key file and a missing answers topic are refused', async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'reelcashier-')), 'bad.key.json')
  writeFileSync(path, JSON.stringify({ writer: 'cashier.demo-a', key_id: 'k', private_key: 'c2hvcnQ=' }))
  assert.throws(() => loadSigningKey(path), /not a writer's Ed25519 key file/)
  await assert.rejects(deposit({ attempts: 1, timeoutMs: 1 }, {}, vectorKey()), /wallet\.answers\.<operator>/)
})
