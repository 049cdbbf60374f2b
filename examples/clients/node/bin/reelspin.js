#!/usr/bin/env node
// reelspin: play one spin on a reelstream platform and print its answer as one JSON line.
// Exit status: 0 settled, 2 rejected (the code on stderr and in the JSON), 3 no answer, 1 usage or connection errors.
import { randomUUID } from 'node:crypto'
import { parseArgs } from 'node:util'
import { DEFAULT_ANSWERS_TOPIC, DEFAULT_GROUP_PREFIX, NoAnswer, play } from '../lib/client.js'
import { partitionerNamed } from '../lib/partitioners.js'
import { kafkaOptions, loadProperties } from '../lib/properties.js'

const OPTIONS = {
  properties: { type: 'string' }, 'topic-prefix': { type: 'string', default: '' }, player: { type: 'string' },
  game: { type: 'string', default: 'rising-joker' }, stake: { type: 'string', default: '100' },
  currency: { type: 'string', default: 'EUR' }, token: { type: 'string', default: process.env.REELSTREAM_SESSION_TOKEN },
  'request-id': { type: 'string' }, 'timeout-ms': { type: 'string', default: '10000' },
  attempts: { type: 'string', default: '3' }, 'linger-ms': { type: 'string', default: '0' },
  partitioner: { type: 'string', default: 'murmur2' },
  'answers-topic': { type: 'string', default: DEFAULT_ANSWERS_TOPIC },
  'group-prefix': { type: 'string', default: DEFAULT_GROUP_PREFIX },
}

function integer(name, text) {
  if (!/^-?\d+$/.test(text)) throw new Error(`--${name} must be an integer, not ${text}`)
  return Number.parseInt(text, 10)
}

async function main(argv) {
  const { values: o } = parseArgs({ args: argv, options: OPTIONS, strict: true })
  if (!o.properties || !o.player || !o.token) {
    throw new Error('--properties, --player and --token (or $REELSTREAM_SESSION_TOKEN) are required')
  }
  const spin = {
    request_id: o['request-id'] || randomUUID(), player_id: o.player, game: o.game,
    stake_minor: integer('stake', o.stake), currency: o.currency, session_token: o.token,
  }
  const config = {
    kafka: kafkaOptions(loadProperties(o.properties)), topicPrefix: o['topic-prefix'],
    partitioner: partitionerNamed(o.partitioner), timeoutMs: integer('timeout-ms', o['timeout-ms']),
    attempts: integer('attempts', o.attempts), lingerMs: integer('linger-ms', o['linger-ms']),
    answersTopic: o['answers-topic'], groupPrefix: o['group-prefix'],
  }
  if (config.attempts < 1 || config.timeoutMs < 1) throw new Error('--attempts and --timeout-ms must be positive')
  let result
  try {
    result = await play(config, spin)
  } catch (error) {
    if (!(error instanceof NoAnswer)) throw error
    process.stderr.write(`reelspin: ${error.message}; send it again later with --request-id ${spin.request_id}\n`)
    return 3
  }
  return report(result, spin, o.partitioner)
}

function report({ answer, attempts, duplicates }, spin, partitioner) {
  const out = { outcome: answer.settled ? 'settled' : 'rejected', request_id: spin.request_id, event_id: answer.eventId }
  if (answer.settled) Object.assign(out, { win_minor: answer.win_minor, balance_after_minor: answer.balance_after_minor })
  else Object.assign(out, { code: answer.code, message: answer.message })
  process.stdout.write(JSON.stringify({ ...out, attempts, duplicates }) + '\n')
  if (answer.settled) return 0
  process.stderr.write(`rejected: ${answer.code}: ${answer.message}\n`)
  if (answer.code === 'WRONG_PARTITION') {
    process.stderr.write(`fix: this run used the ${partitioner} partitioner; produce with Kafka's murmur2 partitioner ` +
      '(kafkajs: Partitioners.DefaultPartitioner, the default in kafkajs 2; --partitioner murmur2)\n')
  }
  return 2
}

main(process.argv.slice(2)).then(
  code => { process.exitCode = code },
  error => { process.stderr.write(`reelspin: ${error.message}\n`); process.exitCode = 1 },
)
