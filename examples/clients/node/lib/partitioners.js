// Partitioners: Kafka's murmur2 (the one the platform requires) and librdkafka's CRC32, only to show the refusal.
import { crc32 } from 'node:zlib'
import { Partitioners } from 'kafkajs'

/** kafkajs 2's default partitioner is the Java client's: toPositive(murmur2(key)) % partitions. */
export const murmur2 = Partitioners.DefaultPartitioner

/** librdkafka's consistent_random for keyed records: crc32(key) % partitions. The platform answers WRONG_PARTITION. */
export const crc32Partitioner = () => ({ partitionMetadata, message }) =>
  crc32(Buffer.from(message.key)) % partitionMetadata.length

export function partitionerNamed(name) {
  if (name === 'murmur2' || name === undefined) return murmur2
  if (name === 'crc32') return crc32Partitioner
  throw new Error(`partitioner ${name} is not murmur2 or crc32`)
}

/** Where a partitioner puts key among n partitions. */
export function partitionOf(createPartitioner, key, n) {
  const partitionMetadata = Array.from({ length: n }, (_, id) => ({ partitionId: id, leader: 0 }))
  return createPartitioner()({ topic: 't', partitionMetadata, message: { key } })
}
