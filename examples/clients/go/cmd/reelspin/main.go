// Command reelspin plays one spin on a reelstream platform and prints its answer as one JSON line.
//
// Exit status: 0 settled, 2 rejected (the code on stderr and in the JSON), 3 no answer after every attempt, 1 usage
// or connection errors.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"

	"reelstream.example/clients/go/reelstream"
)

type output struct {
	Outcome           string `json:"outcome"`
	RequestID         string `json:"request_id"`
	EventID           string `json:"event_id,omitempty"`
	Code              string `json:"code,omitempty"`
	Message           string `json:"message,omitempty"`
	WinMinor          *int64 `json:"win_minor,omitempty"`
	BalanceAfterMinor *int64 `json:"balance_after_minor,omitempty"`
	Attempts          int    `json:"attempts"`
	Duplicates        int    `json:"duplicates"`
}

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	flags := flag.NewFlagSet("reelspin", flag.ContinueOnError)
	properties := flags.String("properties", "", "the role's client .properties file (bootstrap.servers, SASL/TLS)")
	prefix := flags.String("topic-prefix", "", "prefix of every topic name (isolated deployments)")
	answers := flags.String("answers-topic", reelstream.DefaultAnswersTopic,
		"where answers are read: spin.events, or spin.answers.<operator> for role game-client.<operator>")
	player := flags.String("player", "", "player id (the record key)")
	game := flags.String("game", "rising-joker", "rising-joker | stjernestoev")
	stake := flags.Int64("stake", 100, "stake in minor units")
	currency := flags.String("currency", "EUR", "ISO 4217 currency")
	token := flags.String("token", os.Getenv("REELSTREAM_SESSION_TOKEN"), "session token (default $REELSTREAM_SESSION_TOKEN)")
	requestID := flags.String("request-id", "", "idempotency key (default: a fresh UUID)")
	timeoutMs := flags.Int("timeout-ms", 10000, "wait this long for an answer before sending the same request again")
	attempts := flags.Int("attempts", 3, "send the request at most this many times")
	lingerMs := flags.Int("linger-ms", 0, "after the answer, keep reading this long and count duplicate answers")
	partitioner := flags.String("partitioner", "murmur2", "murmur2 (required) | crc32 (librdkafka's, to see WRONG_PARTITION)")
	if err := flags.Parse(args); err != nil {
		return 1
	}
	if *properties == "" || *player == "" || *token == "" {
		fmt.Fprintln(os.Stderr, "reelspin: --properties, --player and --token (or $REELSTREAM_SESSION_TOKEN) are required")
		return 1
	}
	props, err := reelstream.LoadProperties(*properties)
	if err != nil {
		return fail(err)
	}
	opts, err := props.Options()
	if err != nil {
		return fail(err)
	}
	chosen, err := reelstream.PartitionerNamed(*partitioner)
	if err != nil {
		return fail(err)
	}
	if *requestID == "" {
		*requestID = reelstream.NewUUID()
	}
	config := reelstream.Config{Options: opts, TopicPrefix: *prefix, Partitioner: chosen, Source: "reelstream-go-example",
		Timeout: time.Duration(*timeoutMs) * time.Millisecond, Attempts: *attempts,
		Linger: time.Duration(*lingerMs) * time.Millisecond, AnswersTopic: *answers}
	spin := reelstream.Spin{RequestID: *requestID, PlayerID: *player, Game: *game, StakeMinor: *stake,
		Currency: *currency, SessionToken: *token}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	result, err := reelstream.Play(ctx, config, spin)
	if errors.Is(err, reelstream.ErrNoAnswer) {
		fmt.Fprintf(os.Stderr, "reelspin: %v; send it again later with --request-id %s\n", err, spin.RequestID)
		return 3
	}
	if err != nil {
		return fail(err)
	}
	return report(result, spin, *partitioner)
}

func report(result reelstream.Result, spin reelstream.Spin, partitioner string) int {
	answer := result.Answer
	out := output{RequestID: spin.RequestID, EventID: answer.EventID, Attempts: result.Attempts, Duplicates: result.Duplicates}
	if answer.Settled() {
		out.Outcome, out.WinMinor, out.BalanceAfterMinor = "settled", &answer.WinMinor, &answer.BalanceAfterMinor
	} else {
		out.Outcome, out.Code, out.Message = "rejected", answer.Code, answer.Message
	}
	line, _ := json.Marshal(out)
	fmt.Println(string(line))
	if answer.Settled() {
		return 0
	}
	fmt.Fprintf(os.Stderr, "rejected: %s: %s\n", answer.Code, answer.Message)
	if answer.Code == "WRONG_PARTITION" {
		fmt.Fprintf(os.Stderr, "fix: this run used the %s partitioner; produce with Kafka's murmur2 partitioner "+
			"(kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)), the --partitioner murmur2 default)\n", partitioner)
	}
	return 2
}

func fail(err error) int {
	fmt.Fprintf(os.Stderr, "reelspin: %v\n", err)
	return 1
}
