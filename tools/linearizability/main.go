// Command linearizability checks the chaos run's recorded client history (reelstream/chaos/history.py writes it)
// player by player against the model of one account, with porcupine. Exit 0: every player's history is
// linearizable; 1: one is not (or could not be decided in time, or holds an unanswered spin); 2: unreadable input.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/anishathalye/porcupine"
)

// Recorded is one client operation as the chaos run wrote it.
type Recorded struct {
	Client       int    `json:"client"`
	Kind         string `json:"kind"`
	ID           string `json:"id"`
	InvokeNs     int64  `json:"invoke_ns"`
	CompleteNs   *int64 `json:"complete_ns"`
	AmountMinor  int64  `json:"amount_minor"`
	StakeMinor   int64  `json:"stake_minor"`
	Outcome      string `json:"outcome"` // "done", "refused" or "unknown"
	Code         string `json:"code"`
	WinMinor     int64  `json:"win_minor"`
	BalanceAfter *int64 `json:"balance_after_minor"`
	Split        bool   `json:"split"`
}

type history struct {
	Players map[string]struct {
		Currency   string     `json:"currency"`
		Operations []Recorded `json:"operations"`
	} `json:"players"`
}

type verdict struct {
	Result     string `json:"result"` // "Ok", "Illegal", "Unknown" (timed out) or "Indeterminate"
	Operations int    `json:"operations"`
	Detail     string `json:"detail,omitempty"`
}

func main() {
	path := flag.String("history", "", "the history JSON file")
	timeout := flag.Duration("timeout", 60*time.Second, "the longest porcupine may search one player's history")
	viz := flag.String("viz", "", "a directory for an HTML visualization of each player that is not linearizable")
	flag.Parse()
	body, err := os.ReadFile(*path)
	if err != nil {
		fail(err)
	}
	var recorded history
	if err := json.Unmarshal(body, &recorded); err != nil {
		fail(err)
	}
	verdicts, linearizable := checkAll(recorded, *timeout, *viz)
	out, _ := json.MarshalIndent(map[string]interface{}{"linearizable": linearizable, "players": verdicts}, "", "  ")
	fmt.Println(string(out))
	if !linearizable {
		os.Exit(1)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "error:", err)
	os.Exit(2)
}

func checkAll(recorded history, timeout time.Duration, viz string) (map[string]verdict, bool) {
	names := make([]string, 0, len(recorded.Players))
	for name := range recorded.Players {
		names = append(names, name)
	}
	sort.Strings(names)
	verdicts := map[string]verdict{}
	linearizable := len(names) > 0 // an empty history proves nothing
	for _, name := range names {
		found := checkPlayer(recorded.Players[name].Operations, timeout, filepath.Join(viz, name+".html"), viz != "")
		verdicts[name] = found
		linearizable = linearizable && found.Result == string(porcupine.Ok)
	}
	return verdicts, linearizable
}

func checkPlayer(recorded []Recorded, timeout time.Duration, vizPath string, visualize bool) verdict {
	operations, problem := toOperations(recorded)
	if problem != "" {
		return verdict{Result: "Indeterminate", Operations: len(recorded), Detail: problem}
	}
	model := accountModel()
	result, info := porcupine.CheckOperationsVerbose(model, operations, timeout)
	if result != porcupine.Ok && visualize {
		_ = porcupine.VisualizePath(model, info, vizPath)
	}
	return verdict{Result: string(result), Operations: len(recorded)}
}

// toOperations: porcupine's operations of one player; a spin split into debit and credit is two of them over the
// same interval, and an unanswered operation returns after everything else.
func toOperations(recorded []Recorded) ([]porcupine.Operation, string) {
	var operations []porcupine.Operation
	for _, op := range recorded {
		returned := int64(math.MaxInt64)
		if op.CompleteNs != nil {
			returned = *op.CompleteNs
		}
		out := Output{Known: op.Outcome != "unknown", Outcome: op.Outcome, Code: op.Code, WinMinor: op.WinMinor}
		if op.BalanceAfter != nil {
			out.BalanceAfter, out.HasBalance = *op.BalanceAfter, true
		}
		if op.Kind == "spin" && !out.Known {
			return nil, fmt.Sprintf("spin %s has no answer: its win is unknown", op.ID)
		}
		in := Input{Kind: op.Kind, AmountMinor: op.AmountMinor, StakeMinor: op.StakeMinor}
		add := func(in Input, out Output) {
			operations = append(operations, porcupine.Operation{
				ClientId: op.Client, Input: in, Call: op.InvokeNs, Output: out, Return: returned,
			})
		}
		if op.Kind == "spin" && op.Split && out.Outcome == "done" {
			add(Input{Kind: "debit", StakeMinor: op.StakeMinor}, Output{Known: true, Outcome: "done"})
			add(Input{Kind: "credit"}, out)
			continue
		}
		add(in, out)
	}
	return operations, ""
}
