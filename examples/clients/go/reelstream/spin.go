package reelstream

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Spin is one spin request's content (data of reelstream.spin.requested.v1).
type Spin struct {
	RequestID    string `json:"request_id"`
	PlayerID     string `json:"player_id"`
	Game         string `json:"game"`
	StakeMinor   int64  `json:"stake_minor"`
	Currency     string `json:"currency"`
	SessionToken string `json:"session_token"`
}

// Answer is the one answer to a request: settled (Code empty) or rejected with a contract code.
type Answer struct {
	Type              string `json:"-"`
	EventID           string `json:"-"`
	RequestID         string `json:"request_id"`
	Code              string `json:"code"`
	Message           string `json:"message"`
	Game              string `json:"game"`
	StakeMinor        *int64 `json:"stake_minor"`
	WinMinor          int64  `json:"win_minor"`
	BalanceAfterMinor int64  `json:"balance_after_minor"`
}

// Settled tells a settled spin from a rejection.
func (a Answer) Settled() bool { return a.Type == SettledType }

const (
	RequestedType = "reelstream.spin.requested.v1"
	SettledType   = "reelstream.spin.settled.v1"
	RejectedType  = "reelstream.spin.rejected.v1"
)

// ErrNoAnswer means no answer came after every attempt; retry later with the same request id.
var ErrNoAnswer = errors.New("no answer")

// Config says where and how to send; Timeout is per attempt, Attempts bounds the retries of the same request.
type Config struct {
	Options     []kgo.Opt
	TopicPrefix string
	Partitioner kgo.Partitioner
	Timeout     time.Duration
	Attempts    int
	Linger      time.Duration // keep reading this long after the answer to count (and drop) duplicates
	Source      string
	// AnswersTopic is where the answers are read (before TopicPrefix): "" means spin.events; an operator's front end
	// (role game-client.<operator>) reads spin.answers.<operator>, the only answer topic it may read.
	AnswersTopic string
}

// DefaultAnswersTopic is the platform's record of every answer, read when Config.AnswersTopic is empty.
const DefaultAnswersTopic = "spin.events"

func (c Config) answersTopic() string {
	if c.AnswersTopic == "" {
		return DefaultAnswersTopic
	}
	return c.AnswersTopic
}

// Result is the answer and what it took: requests sent and duplicate answers dropped (same event id).
type Result struct {
	Answer     Answer
	Attempts   int
	Duplicates int
}

type envelope struct {
	SpecVersion     string          `json:"specversion"`
	ID              string          `json:"id"`
	Source          string          `json:"source"`
	Type            string          `json:"type"`
	Time            string          `json:"time"`
	Subject         string          `json:"subject"`
	DataContentType string          `json:"datacontenttype"`
	Data            json.RawMessage `json:"data"`
}

// NewUUID returns a random (version 4) UUID.
func NewUUID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // the OS random source failing is not something a client can go on from
	}
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// RequestRecord is the CloudEvent of a spin request: key = player id, header content-type, structured JSON.
func RequestRecord(topic string, spin Spin, source string, now time.Time) (*kgo.Record, error) {
	data, err := json.Marshal(spin)
	if err != nil {
		return nil, err
	}
	value, err := json.Marshal(envelope{"1.0", NewUUID(), source, RequestedType, now.UTC().Format(time.RFC3339Nano),
		spin.PlayerID, "application/json", data})
	if err != nil {
		return nil, err
	}
	return &kgo.Record{Topic: topic, Key: []byte(spin.PlayerID), Value: value,
		Headers: []kgo.RecordHeader{{Key: "content-type", Value: []byte("application/cloudevents+json")}}}, nil
}

// ParseAnswer reads an answer record (spin.events or an operator's spin.answers.<operator>); ok is false for records that answer another request or are of other types.
func ParseAnswer(value []byte, spin Spin) (Answer, bool) {
	if !bytes.Contains(value, []byte(spin.RequestID)) {
		return Answer{}, false // most records on a busy platform are not ours: skip before parsing
	}
	var event envelope
	var answer Answer
	if json.Unmarshal(value, &event) != nil || json.Unmarshal(event.Data, &answer) != nil {
		return Answer{}, false
	}
	if (event.Type != SettledType && event.Type != RejectedType) || answer.RequestID != spin.RequestID {
		return Answer{}, false
	}
	if !namesOurSpin(answer, spin) {
		// An answer to another spin under our id: the original spin's settlement when we reuse an id, or the
		// DUPLICATE_CONFLICT of another spin that reused ours. Each names its own game and stake.
		return Answer{}, false
	}
	answer.Type, answer.EventID = event.Type, event.ID
	return answer, true
}

func namesOurSpin(answer Answer, spin Spin) bool {
	if answer.Game == "" && answer.StakeMinor == nil {
		return true // a refusal of a request too broken to name its spin
	}
	return answer.Game == spin.Game && answer.StakeMinor != nil && *answer.StakeMinor == spin.StakeMinor
}

// Play sends one spin and waits for its answer, sending the identical record again after each timeout.
func Play(ctx context.Context, config Config, spin Spin) (Result, error) {
	client, err := newClient(config, config.answersTopic())
	if err != nil {
		return Result{}, err
	}
	defer client.Close()
	record, err := RequestRecord(config.TopicPrefix+"spin.requests", spin, config.Source, time.Now())
	if err != nil {
		return Result{}, err
	}
	var answer Answer
	result, err := exchange(ctx, client, config, spin.RequestID, record, func(r *kgo.Record) (string, bool) {
		found, ok := ParseAnswer(r.Value, spin)
		if ok && answer.EventID == "" {
			answer = found
		}
		return found.EventID, ok
	})
	result.Answer = answer
	return result, err
}

// newClient is a producer and a reader of answersTopic (before the prefix) from a little before now (broker time), so
// every answer to a request sent after it is seen.
func newClient(config Config, answersTopic string) (*kgo.Client, error) {
	if config.Attempts < 1 || config.Timeout <= 0 {
		return nil, fmt.Errorf("attempts (%d) and timeout (%s) must be positive", config.Attempts, config.Timeout)
	}
	since := time.Now().Add(-5 * time.Second).UnixMilli()
	opts := append([]kgo.Opt{
		kgo.RecordPartitioner(config.Partitioner), kgo.RequiredAcks(kgo.AllISRAcks()), kgo.ProducerLinger(0),
		// franz-go compresses with snappy by default; the platform's consumers read uncompressed and gzip batches.
		kgo.ProducerBatchCompression(kgo.NoCompression()),
		kgo.ConsumeTopics(config.TopicPrefix + answersTopic), kgo.ConsumeResetOffset(kgo.NewOffset().AfterMilli(since)),
		// The platform's answers are written in transactions: never read one that was aborted.
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.FetchMaxWait(200 * time.Millisecond), kgo.ClientID("reelstream-go-example"),
	}, config.Options...)
	return kgo.NewClient(opts...)
}

// exchange sends record, again byte for byte after each timeout, until accept takes an answer (its event id); then it
// keeps reading for config.Linger and counts the duplicates of the answers it took.
func exchange(ctx context.Context, client *kgo.Client, config Config, id string, record *kgo.Record,
	accept func(*kgo.Record) (string, bool)) (Result, error) {
	result, seen, found := Result{}, map[string]bool{}, false
	var deadline time.Time
	for {
		now := time.Now()
		if found && now.After(deadline) {
			return result, nil
		}
		if !found && (result.Attempts == 0 || now.After(deadline)) {
			if result.Attempts == config.Attempts {
				return result, fmt.Errorf("%w to request %s after %d attempts", ErrNoAnswer, id, result.Attempts)
			}
			if err := client.ProduceSync(ctx, copyRecord(record)).FirstErr(); err != nil {
				return result, fmt.Errorf("sending the request: %w", err)
			}
			result.Attempts++
			deadline = time.Now().Add(config.Timeout)
		}
		poll, cancel := context.WithDeadline(ctx, deadline)
		fetches := client.PollFetches(poll)
		cancel()
		if err := ctx.Err(); err != nil {
			return result, err
		}
		for _, fetchErr := range fetches.Errors() {
			if !errors.Is(fetchErr.Err, context.DeadlineExceeded) && !errors.Is(fetchErr.Err, context.Canceled) {
				return result, fmt.Errorf("reading answers: %w", fetchErr.Err)
			}
		}
		fetches.EachRecord(func(r *kgo.Record) {
			eventID, ok := accept(r)
			switch {
			case !ok:
			case seen[eventID]:
				result.Duplicates++ // the same fact delivered again (a service crashed after writing it)
			case !found:
				seen[eventID], found = true, true
				deadline = time.Now().Add(config.Linger)
			default:
				seen[eventID] = true // a second distinct answer would break the contract: keep the first
			}
		})
	}
}

// copyRecord gives each send a fresh record with the same key, value and headers: a retry is byte-identical.
func copyRecord(r *kgo.Record) *kgo.Record {
	return &kgo.Record{Topic: r.Topic, Key: r.Key, Value: r.Value, Headers: r.Headers}
}
