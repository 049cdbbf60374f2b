#!/usr/bin/env node
// reelcashier: an operator's cashier. One deposit signed with its cashier key (cashier.<operator>), its result read from
// wallet.answers.<operator>, printed as one JSON line.
// Exit status: 0 deposited, 2 refused (the code on stderr and in the JSON), 3 no answer, 1 usage, key or connection
// errors.
import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { NoAnswer } from '../lib/client.js'
import { cashierRole, deposit, loadSigningKey, walletAnswersTopic } from '../lib/cashier.js'
import { partitionerNamed } from '../lib/partitioners.js'
import { kafkaOptions, loadProperties } from '../lib/properties.js'

const OPTIONS = {
  properties: { type: 'string' }, operator: { type: 'string' }, key: { type: 'string' },
  'topic-prefix': { type: 'string', default: '' }, 'answers-topic': { type: 'string' },
  'group-prefix': { type: 'string' }, player: { type: 'string' }, amount: { type: 'string' },
  currency: { type: 'string', default: 'EUR' }, 'transaction-id': { type: 'string' },
  'timeout-ms': { type: 'string', default: '10000' }, attempts: { type: 'string', default: '3' },
}

function integer(name, text) {
  if (!/^-?\d+$/.test(text ?? '')) throw new Error(`--${name} must be an integer, not ${text}`)
  return Number.parseInt(text, 10)
}

// The cashier's key, checked to be that cashier's: the wallet binds the deposit to the operator of the key.
function signingKey(path, writer) {
  if (!path) {
    const dir = process.env.REELSTREAM_SIGNING_DIR
    if (!dir) throw new Error(`no --key and no $REELSTREAM_SIGNING_DIR: ${writer}'s key is needed`)
    path = join(dir, `${writer}.key.json`)
  }
  const key = loadSigningKey(path)
  if (key.writer !== writer) throw new Error(`${path} is ${key.writer}'s key, not ${writer}'s`)
  return key
}

async function main(argv) {
  const { values: o } = parseArgs({ args: argv, options: OPTIONS, strict: true })
  if (!o.properties || !o.operator || !o.player) throw new Error('--properties, --operator, --player and --amount are required')
  const amount = integer('amount', o.amount)
  if (amount <= 0) throw new Error('--amount must be positive (minor units)')
  const writer = cashierRole(o.operator)
  const key = signingKey(o.key, writer)
  const data = {
    transaction_id: o['transaction-id'] || randomUUID(), player_id: o.player, amount_minor: amount,
    currency: o.currency, operator_id: o.operator,
  }
  const config = {
    kafka: kafkaOptions(loadProperties(o.properties)), topicPrefix: o['topic-prefix'], partitioner: partitionerNamed('murmur2'),
    timeoutMs: integer('timeout-ms', o['timeout-ms']), attempts: integer('attempts', o.attempts),
    answersTopic: o['answers-topic'] || walletAnswersTopic(o.operator),
    // The role may only use consumer groups under its own prefix.
    groupPrefix: o['group-prefix'] || `${writer}.`,
  }
  if (config.attempts < 1 || config.timeoutMs < 1) throw new Error('--attempts and --timeout-ms must be positive')
  let result
  try {
    result = await deposit(config, data, key)
  } catch (error) {
    if (!(error instanceof NoAnswer)) throw error
    process.stderr.write(`reelcashier: ${error.message}; send it again later with --transaction-id ${data.transaction_id}\n`)
    return 3
  }
  return report(result, data)
}

function report({ answer, attempts, duplicates }, data) {
  const out = {
    outcome: answer.deposited ? 'deposited' : 'rejected', transaction_id: data.transaction_id, event_id: answer.eventId,
  }
  if (!answer.deposited) Object.assign(out, { code: answer.code, message: answer.message })
  if (answer.balance_after_minor != null) out.balance_after_minor = answer.balance_after_minor
  process.stdout.write(JSON.stringify({ ...out, attempts, duplicates }) + '\n')
  if (answer.deposited) return 0
  process.stderr.write(`rejected: ${answer.code}: ${answer.message}\n`)
  return 2
}

main(process.argv.slice(2)).then(
  code => { process.exitCode = code },
  error => { process.stderr.write(`reelcashier: ${error.message}\n`); process.exitCode = 1 },
)
