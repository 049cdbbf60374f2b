package reelstream

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

type signatureVector struct {
	KeyFile      json.RawMessage `json:"key_file"`
	LogicalTopic string          `json:"logical_topic"`
	Key          string          `json:"key"`
	Value        string          `json:"value"`
	Headers      [][2]string     `json:"headers"`
	DigestHex    string          `json:"digest_hex"`
	RootHex      string          `json:"root_hex"`
	SignatureB64 string          `json:"signature_base64"`
}

// The conformance kit's cashier signature vector, made by shared/signing.py, and its key as a key file.
func loadSignatureVector(t *testing.T) (signatureVector, SigningKey) {
	var vector signatureVector
	loadConformance(t, "cashier-signature.json", &vector)
	path := filepath.Join(t.TempDir(), "cashier.demo-a.key.json")
	if err := os.WriteFile(path, vector.KeyFile, 0o600); err != nil {
		t.Fatal(err)
	}
	key, err := LoadSigningKey(path)
	if err != nil {
		t.Fatal(err)
	}
	return vector, key
}

func header(record *kgo.Record, name string) ([]byte, bool) {
	for _, h := range record.Headers {
		if h.Key == name {
			return h.Value, true
		}
	}
	return nil, false
}

func TestARecordSignedAloneCarriesThePlatformsDigestAndSignature(t *testing.T) {
	vector, key := loadSignatureVector(t)
	record := &kgo.Record{Key: []byte(vector.Key), Value: []byte(vector.Value)}
	for _, h := range vector.Headers {
		record.Headers = append(record.Headers, kgo.RecordHeader{Key: h[0], Value: []byte(h[1])})
	}
	digest := RecordDigest(vector.LogicalTopic, record.Key, record.Value, record.Headers)
	if got := hex.EncodeToString(digest[:]); got != vector.DigestHex {
		t.Fatalf("digest %s, want %s", got, vector.DigestHex)
	}
	key.SignAlone(vector.LogicalTopic, record)
	signature, _ := header(record, "reelstream-sig")
	if got := base64.StdEncoding.EncodeToString(signature); got != vector.SignatureB64 {
		t.Fatalf("signature %s, want %s", got, vector.SignatureB64)
	}
	kid, _ := header(record, "reelstream-sig-kid")
	path, found := header(record, "reelstream-sig-path")
	if string(kid) != key.KeyID || !found || len(path) != 0 {
		t.Fatalf("kid %q path %x (found %v)", kid, path, found)
	}
	if again := RecordDigest(vector.LogicalTopic, record.Key, record.Value, record.Headers); again != digest {
		t.Fatal("the signature's own headers changed the digest")
	}
}

func TestADepositNamesItsOperatorAndIsSignedByItsCashier(t *testing.T) {
	_, key := loadSignatureVector(t)
	deposit := Deposit{TransactionID: NewUUID(), PlayerID: "p-1", AmountMinor: 2500, Currency: "EUR", OperatorID: "demo-a"}
	record, err := DepositRecord("x.wallet.commands", deposit, key, "test", time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	var event struct {
		Type string         `json:"type"`
		Data map[string]any `json:"data"`
	}
	if err := json.Unmarshal(record.Value, &event); err != nil {
		t.Fatal(err)
	}
	if record.Topic != "x.wallet.commands" || string(record.Key) != "p-1" || event.Type != DepositType ||
		event.Data["operator_id"] != "demo-a" || event.Data["amount_minor"] != float64(2500) {
		t.Fatalf("record %s %s %s", record.Topic, record.Key, record.Value)
	}
	if writer, _ := header(record, "reelstream-writer"); string(writer) != "cashier.demo-a" {
		t.Fatalf("writer %q", writer)
	}
	// The signature covers the logical topic (wallet.commands), not the deployment's prefixed name.
	digest := RecordDigest(CommandsTopic, record.Key, record.Value, record.Headers)
	root := sha256.Sum256(append([]byte{0}, digest[:]...))
	signature, _ := header(record, "reelstream-sig")
	public := key.private.Public().(ed25519.PublicKey)
	if !ed25519.Verify(public, append([]byte("reelstream.transaction.v1\x00"), root[:]...), signature) {
		t.Fatal("the deposit's signature does not verify")
	}
	unnamed, _ := DepositRecord("wallet.commands", Deposit{TransactionID: NewUUID(), PlayerID: "p-1", AmountMinor: 1,
		Currency: "EUR"}, key, "test", time.Now())
	if strings.Contains(string(unnamed.Value), "operator_id") {
		t.Fatal("a deposit naming no operator carries operator_id")
	}
}

func cashierAnswer(id, typ, transactionID, extra string) []byte {
	return []byte(`{"specversion":"1.0","id":"` + id + `","type":"` + typ + `","data":{"transaction_id":"` +
		transactionID + `","player_id":"p-1"` + extra + `}}`)
}

func TestOnlyTheResultOfOurDepositIsTaken(t *testing.T) {
	ours, other := "33333333-3333-4333-8333-333333333333", "44444444-4444-4444-8444-444444444444"
	deposited, ok := ParseCashierAnswer(cashierAnswer("e1", DepositedType, ours, `,"amount_minor":2500,"balance_after_minor":2500`), ours)
	if !ok || !deposited.Deposited() || *deposited.BalanceAfterMinor != 2500 || deposited.EventID != "e1" {
		t.Fatalf("deposited %+v %v", deposited, ok)
	}
	refused, ok := ParseCashierAnswer(cashierAnswer("e2", CommandRejectedType, ours,
		`,"command_type":"`+DepositType+`","code":"OPERATOR_MISMATCH","message":"m"`), ours)
	if !ok || refused.Deposited() || refused.Code != "OPERATOR_MISMATCH" {
		t.Fatalf("refused %+v %v", refused, ok)
	}
	if _, ok := ParseCashierAnswer(cashierAnswer("e3", DepositedType, other, ""), ours); ok {
		t.Fatal("took another transaction's result")
	}
	withdrawal := `,"command_type":"reelstream.wallet.withdraw.v1","code":"INSUFFICIENT_FUNDS","message":"m"`
	if _, ok := ParseCashierAnswer(cashierAnswer("e4", CommandRejectedType, ours, withdrawal), ours); ok {
		t.Fatal("took the refusal of a withdrawal for the deposit's result")
	}
}

func TestABadKeyFileAndAMissingAnswersTopicAreRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.key.json")
	if err := os.WriteFile(path, []byte(`{"writer":"cashier.demo-a","key_id":"k","private_key":"c2hvcnQ="}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadSigningKey(path); err == nil || !strings.Contains(err.Error(), "not a writer's Ed25519 key file") {
		t.Fatalf("short key: %v", err)
	}
	if _, err := LoadSigningKey(filepath.Join(t.TempDir(), "missing.key.json")); err == nil {
		t.Fatal("a missing key file was read")
	}
	config := Config{Attempts: 1, Timeout: time.Second}
	if _, err := SendDeposit(context.Background(), config, Deposit{}, SigningKey{}); err == nil ||
		!strings.Contains(err.Error(), "wallet.answers.<operator>") {
		t.Fatalf("no answers topic: %v", err)
	}
}
