package reelstream

import (
	"fmt"
	"hash/crc32"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Murmur2 is the partitioner the platform requires: Kafka's default, toPositive(murmur2(key)) % partitions,
// so a player's requests land on the partition that holds the player's state.
func Murmur2() kgo.Partitioner { return kgo.StickyKeyPartitioner(nil) }

// CRC32 mimics librdkafka's consistent_random partitioner (crc32(key) % partitions). The platform refuses the
// requests it misplaces with WRONG_PARTITION; it is here to show that rejection, never to use.
func CRC32() kgo.Partitioner { return kgo.StickyKeyPartitioner(kgo.SaramaHasher(crc32.ChecksumIEEE)) }

// PartitionerNamed returns "murmur2" (the default) or "crc32".
func PartitionerNamed(name string) (kgo.Partitioner, error) {
	switch name {
	case "", "murmur2":
		return Murmur2(), nil
	case "crc32":
		return CRC32(), nil
	}
	return nil, fmt.Errorf("partitioner %q is not murmur2 or crc32", name)
}

// PartitionOf is where a partitioner puts key among n partitions.
func PartitionOf(p kgo.Partitioner, key string, n int) int {
	return p.ForTopic("").Partition(&kgo.Record{Key: []byte(key)}, n)
}
