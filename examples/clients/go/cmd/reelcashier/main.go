// Command reelcashier is an operator's cashier: one deposit on wallet.commands, signed with the operator's cashier
// key (cashier.<operator>), its result read from wallet.answers.<operator>, printed as one JSON line.
//
// Exit status: 0 deposited, 2 refused (the code on stderr and in the JSON), 3 no answer after every attempt, 1 usage,
// key or connection errors.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"reelstream.example/clients/go/reelstream"
)

type output struct {
	Outcome           string `json:"outcome"`
	TransactionID     string `json:"transaction_id"`
	EventID           string `json:"event_id,omitempty"`
	Code              string `json:"code,omitempty"`
	Message           string `json:"message,omitempty"`
	BalanceAfterMinor *int64 `json:"balance_after_minor,omitempty"`
	Attempts          int    `json:"attempts"`
	Duplicates        int    `json:"duplicates"`
}

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	flags := flag.NewFlagSet("reelcashier", flag.ContinueOnError)
	properties := flags.String("properties", "", "the cashier.<operator> role's client .properties file")
	operator := flags.String("operator", "", "the operator whose cashier this is (shared/operators.py)")
	keyFile := flags.String("key", "", "its signing key (default $REELSTREAM_SIGNING_DIR/cashier.<operator>.key.json)")
	prefix := flags.String("topic-prefix", "", "prefix of every topic name (isolated deployments)")
	answers := flags.String("answers-topic", "", "where results are read (default wallet.answers.<operator>)")
	player := flags.String("player", "", "player id (the record key)")
	amount := flags.Int64("amount", 0, "deposit in minor units")
	currency := flags.String("currency", "EUR", "ISO 4217 currency")
	transactionID := flags.String("transaction-id", "", "idempotency key (default: a fresh UUID)")
	timeoutMs := flags.Int("timeout-ms", 10000, "wait this long for the result before sending the same deposit again")
	attempts := flags.Int("attempts", 3, "send the deposit at most this many times")
	if err := flags.Parse(args); err != nil {
		return 1
	}
	if *properties == "" || *operator == "" || *player == "" || *amount <= 0 {
		fmt.Fprintln(os.Stderr, "reelcashier: --properties, --operator, --player and a positive --amount are required")
		return 1
	}
	writer := "cashier." + *operator
	key, err := signingKey(*keyFile, writer)
	if err != nil {
		return fail(err)
	}
	props, err := reelstream.LoadProperties(*properties)
	if err != nil {
		return fail(err)
	}
	opts, err := props.Options()
	if err != nil {
		return fail(err)
	}
	if *answers == "" {
		*answers = reelstream.WalletAnswersTopic(*operator)
	}
	if *transactionID == "" {
		*transactionID = reelstream.NewUUID()
	}
	config := reelstream.Config{Options: opts, TopicPrefix: *prefix, Partitioner: kgo.StickyKeyPartitioner(nil),
		Source: "reelstream-go-example", Timeout: time.Duration(*timeoutMs) * time.Millisecond, Attempts: *attempts,
		AnswersTopic: *answers}
	deposit := reelstream.Deposit{TransactionID: *transactionID, PlayerID: *player, AmountMinor: *amount,
		Currency: *currency, OperatorID: *operator}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	result, err := reelstream.SendDeposit(ctx, config, deposit, key)
	if errors.Is(err, reelstream.ErrNoAnswer) {
		fmt.Fprintf(os.Stderr, "reelcashier: %v; send it again later with --transaction-id %s\n", err, *transactionID)
		return 3
	}
	if err != nil {
		return fail(err)
	}
	return report(result, *transactionID)
}

// signingKey reads the cashier's key file and checks it is that cashier's (the wallet binds the operator to the key).
func signingKey(path, writer string) (reelstream.SigningKey, error) {
	if path == "" {
		dir := os.Getenv("REELSTREAM_SIGNING_DIR")
		if dir == "" {
			return reelstream.SigningKey{}, fmt.Errorf("no --key and no $REELSTREAM_SIGNING_DIR: %s's key is needed", writer)
		}
		path = filepath.Join(dir, writer+".key.json")
	}
	key, err := reelstream.LoadSigningKey(path)
	if err == nil && key.Writer != writer {
		err = fmt.Errorf("%s is %s's key, not %s's", path, key.Writer, writer)
	}
	return key, err
}

func report(result reelstream.CashierResult, transactionID string) int {
	answer := result.Answer
	out := output{TransactionID: transactionID, EventID: answer.EventID, Attempts: result.Attempts,
		Duplicates: result.Duplicates, BalanceAfterMinor: answer.BalanceAfterMinor}
	if answer.Deposited() {
		out.Outcome = "deposited"
	} else {
		out.Outcome, out.Code, out.Message = "rejected", answer.Code, answer.Message
	}
	line, _ := json.Marshal(out)
	fmt.Println(string(line))
	if answer.Deposited() {
		return 0
	}
	fmt.Fprintf(os.Stderr, "rejected: %s: %s\n", answer.Code, answer.Message)
	return 2
}

func fail(err error) int {
	fmt.Fprintf(os.Stderr, "reelcashier: %v\n", err)
	return 1
}
