package reelstream

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// An operator's cashier (role cashier.<operator>) sends deposits on wallet.commands, each signed with its own key, and
// reads their results from wallet.answers.<operator>, the only wallet topic it may read. The wallet binds a deposit to
// the operator whose cashier key signed it (docs/security.md, "Per-operator cashier answers").

const (
	DepositType         = "reelstream.wallet.deposit.v1"
	DepositedType       = "reelstream.wallet.deposited.v1"
	CommandRejectedType = "reelstream.wallet.command-rejected.v1"
	// CommandsTopic is the logical name a signature covers (without the deployment's topic prefix).
	CommandsTopic = "wallet.commands"
	writerHeader  = "reelstream-writer"
)

var (
	recordDomain      = []byte("reelstream.record.v1\x00")
	transactionDomain = []byte("reelstream.transaction.v1\x00")
	// Headers no signature covers: the signature's own and the marker of a re-driven dead letter.
	uncovered = map[string]bool{"reelstream-sig-kid": true, "reelstream-sig": true, "reelstream-sig-path": true,
		"reelstream-redrive": true}
)

// WalletAnswersTopic is operator's cashier answer topic (before the prefix).
func WalletAnswersTopic(operator string) string { return "wallet.answers." + operator }

// SigningKey is a writer's Ed25519 key as `reelstream infra up` writes it: $REELSTREAM_SIGNING_DIR/<writer>.key.json.
type SigningKey struct {
	Writer  string
	KeyID   string
	private ed25519.PrivateKey
}

// LoadSigningKey reads a <writer>.key.json file ({"writer", "key_id", "private_key": base64 of the 32-byte seed}).
func LoadSigningKey(path string) (SigningKey, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return SigningKey{}, fmt.Errorf("signing key: %w", err)
	}
	var file struct {
		Writer     string `json:"writer"`
		KeyID      string `json:"key_id"`
		PrivateKey string `json:"private_key"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		return SigningKey{}, fmt.Errorf("signing key %s: %w", path, err)
	}
	seed, err := base64.StdEncoding.DecodeString(file.PrivateKey)
	if err != nil || len(seed) != ed25519.SeedSize || file.Writer == "" || file.KeyID == "" {
		return SigningKey{}, fmt.Errorf("signing key %s: not a writer's Ed25519 key file", path)
	}
	return SigningKey{file.Writer, file.KeyID, ed25519.NewKeyFromSeed(seed)}, nil
}

// field is the length prefix of a key, value or name (its bytes follow); nil is an absent key or value.
func field(value []byte) []byte {
	if value == nil {
		return []byte{0xff, 0xff, 0xff, 0xff}
	}
	return binary.BigEndian.AppendUint32(nil, uint32(len(value)))
}

// RecordDigest is the platform's record digest (shared/signing.py): SHA-256 over a domain, the logical topic, key,
// value and every covered header sorted by (name, value), each field length-prefixed.
func RecordDigest(logicalTopic string, key, value []byte, headers []kgo.RecordHeader) [32]byte {
	covered := make([]kgo.RecordHeader, 0, len(headers))
	for _, h := range headers {
		if !uncovered[h.Key] {
			covered = append(covered, h)
		}
	}
	sort.Slice(covered, func(i, j int) bool {
		if covered[i].Key != covered[j].Key {
			return covered[i].Key < covered[j].Key
		}
		return bytes.Compare(covered[i].Value, covered[j].Value) < 0
	})
	var joined bytes.Buffer
	joined.Write(recordDomain)
	for _, part := range [][]byte{[]byte(logicalTopic), key, value} {
		joined.Write(field(part))
		joined.Write(part)
	}
	for _, h := range covered { // a header's value is never "absent": an empty one counts as zero bytes
		joined.Write(field([]byte(h.Key)))
		joined.WriteString(h.Key)
		joined.Write(binary.BigEndian.AppendUint32(nil, uint32(len(h.Value))))
		joined.Write(h.Value)
	}
	return sha256.Sum256(joined.Bytes())
}

// SignAlone adds the key id, the signature and the (empty) inclusion path to a record that is a transaction of its
// own: root = SHA-256(00 || digest), signature over the transaction domain and the root.
func (k SigningKey) SignAlone(logicalTopic string, record *kgo.Record) {
	digest := RecordDigest(logicalTopic, record.Key, record.Value, record.Headers)
	root := sha256.Sum256(append([]byte{0}, digest[:]...))
	signature := ed25519.Sign(k.private, append(append([]byte{}, transactionDomain...), root[:]...))
	record.Headers = append(record.Headers, kgo.RecordHeader{Key: "reelstream-sig-kid", Value: []byte(k.KeyID)},
		kgo.RecordHeader{Key: "reelstream-sig", Value: signature}, kgo.RecordHeader{Key: "reelstream-sig-path", Value: []byte{}})
}

// Deposit is a cashier deposit (data of reelstream.wallet.deposit.v1); OperatorID must be the signing key's operator.
type Deposit struct {
	TransactionID string `json:"transaction_id"`
	PlayerID      string `json:"player_id"`
	AmountMinor   int64  `json:"amount_minor"`
	Currency      string `json:"currency"`
	OperatorID    string `json:"operator_id,omitempty"`
}

// DepositRecord is the signed CloudEvent of a deposit: key = player id, the writer id of the key, signed alone.
func DepositRecord(topic string, deposit Deposit, key SigningKey, source string, now time.Time) (*kgo.Record, error) {
	data, err := json.Marshal(deposit)
	if err != nil {
		return nil, err
	}
	value, err := json.Marshal(envelope{"1.0", NewUUID(), source, DepositType, now.UTC().Format(time.RFC3339Nano),
		deposit.PlayerID, "application/json", data})
	if err != nil {
		return nil, err
	}
	record := &kgo.Record{Topic: topic, Key: []byte(deposit.PlayerID), Value: value, Headers: []kgo.RecordHeader{
		{Key: "content-type", Value: []byte("application/cloudevents+json")}, {Key: writerHeader, Value: []byte(key.Writer)}}}
	key.SignAlone(CommandsTopic, record)
	return record, nil
}

// CashierAnswer is the wallet's result of a deposit: Deposited (Code empty) or CommandRejected with a code.
type CashierAnswer struct {
	Type              string `json:"-"`
	EventID           string `json:"-"`
	TransactionID     string `json:"transaction_id"`
	CommandType       string `json:"command_type"`
	Code              string `json:"code"`
	Message           string `json:"message"`
	AmountMinor       int64  `json:"amount_minor"`
	BalanceAfterMinor *int64 `json:"balance_after_minor"`
}

// Deposited tells a deposit from its refusal.
func (a CashierAnswer) Deposited() bool { return a.Type == DepositedType }

// ParseCashierAnswer reads an answer record; ok is false for other transactions and other types.
func ParseCashierAnswer(value []byte, transactionID string) (CashierAnswer, bool) {
	if !bytes.Contains(value, []byte(transactionID)) {
		return CashierAnswer{}, false
	}
	var event envelope
	var answer CashierAnswer
	if json.Unmarshal(value, &event) != nil || json.Unmarshal(event.Data, &answer) != nil {
		return CashierAnswer{}, false
	}
	refusal := event.Type == CommandRejectedType && answer.CommandType == DepositType
	if (event.Type != DepositedType && !refusal) || answer.TransactionID != transactionID {
		return CashierAnswer{}, false
	}
	answer.Type, answer.EventID = event.Type, event.ID
	return answer, true
}

// CashierResult is the answer and what it took, as Result for a spin.
type CashierResult struct {
	Answer     CashierAnswer
	Attempts   int
	Duplicates int
}

// SendDeposit signs and sends one deposit and waits for its result on config.AnswersTopic (an operator's cashier:
// wallet.answers.<operator>), sending the identical record again after each timeout (a repeat returns the first result).
func SendDeposit(ctx context.Context, config Config, deposit Deposit, key SigningKey) (CashierResult, error) {
	if config.AnswersTopic == "" {
		return CashierResult{}, fmt.Errorf("a cashier reads its results from wallet.answers.<operator>: set the answers topic")
	}
	client, err := newClient(config, config.AnswersTopic)
	if err != nil {
		return CashierResult{}, err
	}
	defer client.Close()
	record, err := DepositRecord(config.TopicPrefix+CommandsTopic, deposit, key, config.Source, time.Now())
	if err != nil {
		return CashierResult{}, err
	}
	var answer CashierAnswer
	result, err := exchange(ctx, client, config, deposit.TransactionID, record, func(r *kgo.Record) (string, bool) {
		found, ok := ParseCashierAnswer(r.Value, deposit.TransactionID)
		if ok && answer.EventID == "" {
			answer = found
		}
		return found.EventID, ok
	})
	return CashierResult{answer, result.Attempts, result.Duplicates}, err
}
