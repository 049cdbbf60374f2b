package main

import (
	"testing"
	"time"
)

func ptr(v int64) *int64 { return &v }

func TestOverlappingDepositAndSpinAreLinearizableInEitherOrder(t *testing.T) {
	ops := []Recorded{
		{Client: 0, Kind: "deposit", InvokeNs: 0, CompleteNs: ptr(10), AmountMinor: 100, Outcome: "done", BalanceAfter: ptr(100)},
		{Client: 0, Kind: "spin", InvokeNs: 20, CompleteNs: ptr(40), StakeMinor: 10, Outcome: "done", WinMinor: 0, BalanceAfter: ptr(140)},
		{Client: 1, Kind: "deposit", InvokeNs: 25, CompleteNs: ptr(35), AmountMinor: 50, Outcome: "done", BalanceAfter: ptr(150)},
	}
	if got := checkPlayer(ops, time.Second, "", false); got.Result != "Ok" {
		t.Fatalf("want Ok, got %+v", got)
	}
}

func TestARefusalForFundsTheBalanceCoversIsIllegal(t *testing.T) {
	ops := []Recorded{
		{Client: 0, Kind: "deposit", InvokeNs: 0, CompleteNs: ptr(10), AmountMinor: 100, Outcome: "done", BalanceAfter: ptr(100)},
		{Client: 1, Kind: "withdraw", InvokeNs: 20, CompleteNs: ptr(30), AmountMinor: 50, Outcome: "refused", Code: "INSUFFICIENT_FUNDS"},
	}
	if got := checkPlayer(ops, time.Second, "", false); got.Result != "Illegal" {
		t.Fatalf("want Illegal, got %+v", got)
	}
}

func TestAnUnansweredWithdrawalMayHaveHappened(t *testing.T) {
	ops := []Recorded{
		{Client: 0, Kind: "deposit", InvokeNs: 0, CompleteNs: ptr(10), AmountMinor: 100, Outcome: "done", BalanceAfter: ptr(100)},
		{Client: 1, Kind: "withdraw", InvokeNs: 20, AmountMinor: 30, Outcome: "unknown"},
		{Client: 0, Kind: "deposit", InvokeNs: 40, CompleteNs: ptr(50), AmountMinor: 5, Outcome: "done", BalanceAfter: ptr(75)},
	}
	if got := checkPlayer(ops, time.Second, "", false); got.Result != "Ok" {
		t.Fatalf("want Ok, got %+v", got)
	}
}

func TestASplitSpinLetsADepositLandBetweenItsDebitAndCredit(t *testing.T) {
	ops := []Recorded{
		{Client: 0, Kind: "deposit", InvokeNs: 0, CompleteNs: ptr(10), AmountMinor: 100, Outcome: "done", BalanceAfter: ptr(100)},
		{Client: 0, Kind: "spin", InvokeNs: 20, CompleteNs: ptr(60), StakeMinor: 10, Outcome: "done", WinMinor: 500, Split: true, BalanceAfter: ptr(640)},
		{Client: 1, Kind: "deposit", InvokeNs: 30, CompleteNs: ptr(40), AmountMinor: 50, Outcome: "done", BalanceAfter: ptr(140)},
	}
	if got := checkPlayer(ops, time.Second, "", false); got.Result != "Ok" {
		t.Fatalf("want Ok, got %+v", got)
	}
}
