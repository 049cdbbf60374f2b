// One spin: the request out on spin.requests (key = player id), its one answer back from spin.events (or the
// configured answers topic: an operator's spin.answers.<operator>).
import { randomUUID } from 'node:crypto'
import { Kafka, logLevel } from 'kafkajs'

export const REQUESTED = 'reelstream.spin.requested.v1'
export const SETTLED = 'reelstream.spin.settled.v1'
export const REJECTED = 'reelstream.spin.rejected.v1'

export class NoAnswer extends Error {}

// Where answers are read (before the topic prefix): spin.events, the platform's record of every answer; an operator's
// front end (role game-client.<operator>) reads spin.answers.<operator>, the only answer topic it may read, and its
// throwaway consumer groups must start with game-client.<operator>. (its groupPrefix).
export const DEFAULT_ANSWERS_TOPIC = 'spin.events'
export const DEFAULT_GROUP_PREFIX = 'reelstream-node-example-'

export function answersTopic({ answersTopic: topic } = {}) {
  return topic || DEFAULT_ANSWERS_TOPIC
}

/** The CloudEvent of a spin request, as the message kafkajs sends (structured JSON mode). */
export function requestMessage(spin, source, now = new Date()) {
  const event = {
    specversion: '1.0', id: randomUUID(), source, type: REQUESTED, time: now.toISOString(), subject: spin.player_id,
    datacontenttype: 'application/json', data: spin,
  }
  return { key: spin.player_id, value: JSON.stringify(event), headers: { 'content-type': 'application/cloudevents+json' } }
}

/** The answer to our request in an answer record, or null (other requests, other types, others' conflicts). */
export function parseAnswer(value, spin) {
  if (!value.includes(spin.request_id)) return null // most records on a busy platform are not ours
  const event = parseEvent(value)
  const data = event?.data
  if (event === null) return null
  if ((event.type !== SETTLED && event.type !== REJECTED) || data?.request_id !== spin.request_id) return null
  if (!namesOurSpin(data, spin)) return null
  return { eventId: event.id, settled: event.type === SETTLED, ...data }
}

/** A record's CloudEvent, or null when it is not JSON (not ours to judge: the services dead-letter those). */
export function parseEvent(value) {
  try {
    return JSON.parse(value)
  } catch {
    return null
  }
}

// An answer to another spin under our id names its own game and stake: the original spin's settlement when we reuse
// an id, or the DUPLICATE_CONFLICT of another spin that reused ours.
function namesOurSpin(data, spin) {
  if (data.game == null && data.stake_minor == null) return true // a refusal of a request too broken to name its spin
  return data.game === spin.game && data.stake_minor === spin.stake_minor
}

// kafkajs logs to stdout by default; the CLI's stdout is its answer, so warnings go to stderr.
const toStderr = () => ({ namespace, log }) => process.stderr.write(`kafkajs ${namespace}: ${log.message}\n`)

/** Send the spin and wait for its answer (exchangeOnce: the identical message again after each timeout). */
export async function play(config, spin) {
  return exchangeOnce(config, {
    answers: answersTopic(config), requestTopic: 'spin.requests', message: requestMessage(spin, 'reelstream-node-example'),
    parse: value => parseAnswer(value, spin), what: `request ${spin.request_id}`,
  })
}

/**
 * Send `message` on `requestTopic` and wait for the answer `parse` takes (an object with its `eventId`, or null) on
 * `answers` (topic names before the prefix); after each timeout the identical message is sent again. Resolves
 * { answer, attempts, duplicates }; rejects with NoAnswer after `attempts` sends.
 */
export async function exchangeOnce(config, { answers, requestTopic, message, parse, what }) {
  const { kafka: options, topicPrefix = '', partitioner, timeoutMs, attempts, lingerMs = 0 } = config
  const kafka = new Kafka({ clientId: 'reelstream-node-example', logLevel: logLevel.WARN, logCreator: toStderr, ...options })
  const eventsTopic = topicPrefix + answers
  const admin = kafka.admin()
  await admin.connect()
  // Every answer to the request sent below is after these offsets, whenever the group below gets its partitions.
  const start = await admin.fetchTopicOffsets(eventsTopic)
  const groupId = `${config.groupPrefix ?? DEFAULT_GROUP_PREFIX}${randomUUID()}`
  const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 200 })
  const producer = kafka.producer({ createPartitioner: partitioner, allowAutoTopicCreation: false })
  try {
    await producer.connect()
    const requests = topicPrefix + requestTopic
    const plan = { requests, eventsTopic, start, timeoutMs, attempts, lingerMs, message, parse, what }
    return await exchange(consumer, producer, plan)
  } finally {
    await Promise.allSettled([consumer.disconnect(), producer.disconnect()])
    await admin.deleteGroups([groupId]).catch(() => {}) // throwaway group: nothing to resume
    await admin.disconnect()
  }
}

async function exchange(consumer, producer, plan) {
  const { requests, eventsTopic, start, timeoutMs, attempts, lingerMs, message, parse, what } = plan
  const seen = new Set()
  let answer = null
  let duplicates = 0
  let wake = () => {}
  await consumer.connect()
  await consumer.subscribe({ topic: eventsTopic, fromBeginning: false })
  const joined = new Promise(resolve => consumer.on(consumer.events.GROUP_JOIN, resolve))
  await consumer.run({
    eachMessage: async ({ message: record }) => {
      const found = parse(record.value.toString('utf8'))
      if (found === null) return
      if (seen.has(found.eventId)) {
        duplicates += 1 // the same fact delivered again (a service crashed after writing it)
        return
      }
      seen.add(found.eventId)
      if (answer === null) {
        answer = found // a second distinct answer would break the contract: the first one stands
        wake()
      }
    },
  })
  await joined
  for (const { partition, offset } of start) consumer.seek({ topic: eventsTopic, partition, offset })
  let sent = 0
  while (answer === null && sent < attempts) {
    await producer.send({ topic: requests, acks: -1, messages: [message] })
    sent += 1
    await new Promise(resolve => {
      const timer = setTimeout(resolve, timeoutMs)
      wake = () => { clearTimeout(timer); resolve() }
      if (answer !== null) wake()
    })
  }
  if (answer === null) throw new NoAnswer(`no answer to ${what} after ${sent} attempts`)
  await new Promise(resolve => setTimeout(resolve, lingerMs))
  return { answer, attempts: sent, duplicates }
}
