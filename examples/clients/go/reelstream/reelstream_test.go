package reelstream

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// loadConformance reads one of the conformance kit's files (docs/contract/conformance) into into.
func loadConformance(t *testing.T, name string, into any) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "docs", "contract", "conformance", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, into); err != nil {
		t.Fatal(err)
	}
}

type partitioningVectors struct {
	Partitions int `json:"partitions"`
	Keys       []struct {
		Key     string `json:"key"`
		Murmur2 int    `json:"murmur2"`
		CRC32   int    `json:"crc32"`
	} `json:"keys"`
}

// The language-neutral vectors of the conformance kit: what the Java client and librdkafka compute for each key.
func loadVectors(t *testing.T) partitioningVectors {
	var vectors partitioningVectors
	loadConformance(t, "partitioning.json", &vectors)
	if len(vectors.Keys) < 8 {
		t.Fatalf("only %d partitioning vectors", len(vectors.Keys))
	}
	return vectors
}

func TestTheMurmur2PartitionerPutsEachKeyWhereTheJavaClientDoes(t *testing.T) {
	vectors := loadVectors(t)
	for _, v := range vectors.Keys {
		if got := PartitionOf(Murmur2(), v.Key, vectors.Partitions); got != v.Murmur2 {
			t.Errorf("murmur2 %q: partition %d, want %d", v.Key, got, v.Murmur2)
		}
	}
}

func TestTheCRC32PartitionerPutsEachKeyWhereLibrdkafkasConsistentPartitionerDoes(t *testing.T) {
	vectors := loadVectors(t)
	differ := 0
	for _, v := range vectors.Keys {
		if got := PartitionOf(CRC32(), v.Key, vectors.Partitions); got != v.CRC32 {
			t.Errorf("crc32 %q: partition %d, want %d", v.Key, got, v.CRC32)
		}
		if v.CRC32 != v.Murmur2 {
			differ++
		}
	}
	if differ == 0 {
		t.Fatal("no vector where the two partitioners disagree: the WRONG_PARTITION demo would prove nothing")
	}
}

func TestPropertiesAreParsedAsTheJavaClientReadsThem(t *testing.T) {
	text := "# a role's settings\n! another comment\nbootstrap.servers = b1:9093,b2:9093\n" +
		"security.protocol: SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n" +
		"sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \\\n" +
		"    username=\"game-client\" password=\"s3cr\\:et=1\";\nssl.truststore.type=PEM\n"
	props, err := ParseProperties(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if props["bootstrap.servers"] != "b1:9093,b2:9093" || props["security.protocol"] != "SASL_SSL" {
		t.Fatalf("parsed %v", props)
	}
	user, password, err := JAASCredentials(props["sasl.jaas.config"])
	if err != nil || user != "game-client" || password != "s3cr:et=1" {
		t.Fatalf("credentials %q %q %v", user, password, err)
	}
}

func TestPlaintextAndSaslSslPropertiesBecomeOptionsAndBadOnesAreRefused(t *testing.T) {
	if opts, err := (Properties{"bootstrap.servers": "127.0.0.1:9092"}).Options(); err != nil || len(opts) != 1 {
		t.Fatalf("plaintext: %d options, %v", len(opts), err)
	}
	secured := Properties{"bootstrap.servers": "b:9093", "security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN",
		"sasl.jaas.config": `x required username="u" password="p";`}
	if opts, err := secured.Options(); err != nil || len(opts) != 3 {
		t.Fatalf("SASL_SSL: %d options, %v", len(opts), err)
	}
	bad := []Properties{
		{},
		{"bootstrap.servers": "b:9093", "security.protocol": "KERBEROS"},
		{"bootstrap.servers": "b:9093", "security.protocol": "SASL_PLAINTEXT", "sasl.jaas.config": "nothing"},
		{"bootstrap.servers": "b:9093", "security.protocol": "SSL", "ssl.truststore.location": "/nonexistent.pem"},
		{"bootstrap.servers": "b:9093", "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "GSSAPI",
			"sasl.jaas.config": `username="u" password="p"`},
	}
	for _, props := range bad {
		if _, err := props.Options(); err == nil {
			t.Errorf("accepted %v", props)
		}
	}
}

func TestTheRequestIsAStructuredCloudEventKeyedByThePlayer(t *testing.T) {
	spin := Spin{RequestID: NewUUID(), PlayerID: "p-1", Game: "rising-joker", StakeMinor: 100, Currency: "EUR",
		SessionToken: "v1.x"}
	record, err := RequestRecord("spin.requests", spin, "test", time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	var event map[string]any
	if err := json.Unmarshal(record.Value, &event); err != nil {
		t.Fatal(err)
	}
	if string(record.Key) != "p-1" || event["subject"] != "p-1" || event["type"] != RequestedType ||
		event["specversion"] != "1.0" || event["time"] != "2026-12-01T10:00:00Z" {
		t.Fatalf("record %s %s", record.Key, record.Value)
	}
	if h := record.Headers[0]; h.Key != "content-type" || string(h.Value) != "application/cloudevents+json" {
		t.Fatalf("header %v", h)
	}
	data := event["data"].(map[string]any)
	if data["request_id"] != spin.RequestID || data["stake_minor"] != float64(100) || len(data) != 6 {
		t.Fatalf("data %v", data)
	}
}

func answerBytes(id, typ, requestID, extra string) []byte {
	return []byte(`{"specversion":"1.0","id":"` + id + `","type":"` + typ + `","data":{"request_id":"` + requestID +
		`","player_id":"p-1"` + extra + `}}`)
}

func TestOnlyAnswersToOurRequestAreTakenAndAConflictOnlyWhenItNamesOurSpin(t *testing.T) {
	spin := Spin{RequestID: "11111111-1111-4111-8111-111111111111", PlayerID: "p-1", Game: "rising-joker", StakeMinor: 100}
	settled, ok := ParseAnswer(answerBytes("e1", SettledType, spin.RequestID,
		`,"game":"rising-joker","stake_minor":100,"win_minor":40,"balance_after_minor":940`), spin)
	if !ok || !settled.Settled() || settled.WinMinor != 40 || settled.EventID != "e1" {
		t.Fatalf("settled %+v %v", settled, ok)
	}
	if _, ok := ParseAnswer(answerBytes("e2", SettledType, "22222222-2222-4222-8222-222222222222", ""), spin); ok {
		t.Fatal("took another request's answer")
	}
	if _, ok := ParseAnswer(answerBytes("e3", "reelstream.spin.accepted.v1", spin.RequestID, ""), spin); ok {
		t.Fatal("took a journal fact for an answer")
	}
	original := `,"game":"rising-joker","stake_minor":50,"win_minor":0`
	if _, ok := ParseAnswer(answerBytes("e6", SettledType, spin.RequestID, original), spin); ok {
		t.Fatal("took the settlement of the spin that first used our id (another stake)")
	}
	theirs := `,"code":"DUPLICATE_CONFLICT","message":"m","game":"rising-joker","stake_minor":200`
	if _, ok := ParseAnswer(answerBytes("e4", RejectedType, spin.RequestID, theirs), spin); ok {
		t.Fatal("took the refusal of another spin that reused our id")
	}
	ours := `,"code":"DUPLICATE_CONFLICT","message":"m","game":"rising-joker","stake_minor":100`
	if answer, ok := ParseAnswer(answerBytes("e5", RejectedType, spin.RequestID, ours), spin); !ok || answer.Code != "DUPLICATE_CONFLICT" {
		t.Fatalf("conflict %+v %v", answer, ok)
	}
}

func TestTheAnswersTopicIsSpinEventsUnlessConfigured(t *testing.T) {
	if got := (Config{}).answersTopic(); got != "spin.events" {
		t.Fatalf("default answers topic %q, want spin.events", got)
	}
	if got := (Config{AnswersTopic: "spin.answers.demo-a"}).answersTopic(); got != "spin.answers.demo-a" {
		t.Fatalf("configured answers topic %q, want spin.answers.demo-a", got)
	}
}
