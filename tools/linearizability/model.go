// The model of one player's account in one currency, as the chaos run's clients see it: a balance in minor units
// that deposits raise, withdrawals lower when it covers them, and spins change by win minus stake when it covers the
// stake. A refusal for insufficient funds must be one the balance explains; any other refusal changes nothing.
package main

import (
	"fmt"

	"github.com/anishathalye/porcupine"
)

// Input is what a client asked: a deposit or withdrawal of AmountMinor, or a spin at StakeMinor. A spin whose debit
// and settlement were two wallet transactions (a jackpot claim) is checked as two steps: "debit" and "credit".
type Input struct {
	Kind        string
	AmountMinor int64
	StakeMinor  int64
}

// Output is what the client was answered. Known is false for an operation whose answer never came: it may or may not
// have taken effect. BalanceAfter is the balance the answer states (HasBalance false: it states none).
type Output struct {
	Known        bool
	Outcome      string // "done" (deposited, withdrawn, settled) or "refused"
	Code         string // the refusal's code
	WinMinor     int64
	BalanceAfter int64
	HasBalance   bool
}

const insufficientFunds = "INSUFFICIENT_FUNDS"

// step is every balance the account may hold after the operation, from `balance` (none: the answer is impossible).
func step(balance int64, in Input, out Output) []int64 {
	if !out.Known {
		return unknownStep(balance, in)
	}
	if out.Outcome == "refused" {
		return refusedStep(balance, in, out)
	}
	var after int64
	switch in.Kind {
	case "deposit":
		after = balance + in.AmountMinor
	case "withdraw":
		if balance < in.AmountMinor {
			return nil
		}
		after = balance - in.AmountMinor
	case "spin":
		if balance < in.StakeMinor {
			return nil
		}
		after = balance - in.StakeMinor + out.WinMinor
	case "debit":
		if balance < in.StakeMinor {
			return nil
		}
		return []int64{balance - in.StakeMinor} // its answer is the credit's
	case "credit":
		after = balance + out.WinMinor
	default:
		panic(fmt.Sprintf("unknown operation %q", in.Kind))
	}
	if out.HasBalance && out.BalanceAfter != after {
		return nil
	}
	return []int64{after}
}

func refusedStep(balance int64, in Input, out Output) []int64 {
	if out.HasBalance && out.BalanceAfter != balance {
		return nil
	}
	if out.Code != insufficientFunds {
		return []int64{balance}
	}
	needed := in.AmountMinor
	if in.Kind == "spin" {
		needed = in.StakeMinor
	}
	if in.Kind == "deposit" || balance >= needed {
		return nil // a deposit is never refused for funds; a covered amount must not be
	}
	return []int64{balance}
}

// unknownStep: an unanswered deposit or withdrawal took effect or did not. (An unanswered spin's win is unknown:
// the history builder refuses such a player's history as indeterminate before it gets here.)
func unknownStep(balance int64, in Input) []int64 {
	switch in.Kind {
	case "deposit":
		return []int64{balance, balance + in.AmountMinor}
	case "withdraw":
		if balance >= in.AmountMinor {
			return []int64{balance, balance - in.AmountMinor}
		}
		return []int64{balance}
	}
	panic(fmt.Sprintf("an unanswered %s cannot be modelled", in.Kind))
}

// accountModel starts every checked player at a balance of 0 (each is a new player of the run).
func accountModel() porcupine.Model {
	nondeterministic := porcupine.NondeterministicModel{
		Init: func() []interface{} { return []interface{}{int64(0)} },
		Step: func(state, input, output interface{}) []interface{} {
			var next []interface{}
			for _, balance := range step(state.(int64), input.(Input), output.(Output)) {
				next = append(next, balance)
			}
			return next
		},
		Equal: func(a, b interface{}) bool { return a.(int64) == b.(int64) },
		DescribeOperation: func(input, output interface{}) string {
			in, out := input.(Input), output.(Output)
			return fmt.Sprintf("%s %d/%d -> %s %s win %d balance %d", in.Kind, in.AmountMinor, in.StakeMinor,
				out.Outcome, out.Code, out.WinMinor, out.BalanceAfter)
		},
		DescribeState: func(state interface{}) string { return fmt.Sprintf("%d", state.(int64)) },
	}
	return nondeterministic.ToModel()
}
