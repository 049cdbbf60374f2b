# Phase: the Go and Node.js example clients built and tested, the AsyncAPI document validated by the AsyncAPI parser,
# and each client run through the conformance kit against a platform of its own (own topic prefix and state dir); then
# each client's cashier makes one signed deposit as an operator's cashier, answered on that operator's topic.
# Sourced by .ci/run after the test phase: the broker and PostgreSQL are running; installs Go and Node when missing.
# It runs beside the three-broker phase (own clusters, ports and state dirs; nothing shared but the CPUs), which
# waits on brokers and services most of its time: the two overlap instead of adding up.

clients_toolchains() {
  [ -x /usr/local/go/bin/go ] && export PATH="$PATH:/usr/local/go/bin"
  local missing=()
  command -v go >/dev/null || missing+=(golang-go)
  command -v node >/dev/null || missing+=(nodejs)
  command -v npm >/dev/null || missing+=(npm)
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "installing: ${missing[*]}"
    ${SUDO:-} apt-get update -q
    ${SUDO:-} apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
  echo "go: $(go version); node: $(node --version); npm: $(npm --version)"
}

clients_build_and_test() {
  local bin=$1
  (cd examples/clients/go && go mod download && go vet ./... && go test ./... && go build -o "$bin/reelspin-go" ./cmd/reelspin \
    && go build -o "$bin/reelcashier-go" ./cmd/reelcashier)
  (cd examples/clients/node && npm ci --no-audit --no-fund && node --test test/)
  (cd tools/asyncapi && npm ci --no-audit --no-fund && node validate.mjs ../../docs/contract/asyncapi.json)
  # The parser test also checks that a broken document is refused (it skips where tools/asyncapi is not installed).
  .venv/bin/python -m pytest -q -p no:cacheprovider tests/unit/shared/test_asyncapi_bindings.py
}

clients_conformance() {
  local bin=$1 state=$2 rc=0
  if [ -f .reelstream/env ]; then set -a; . .reelstream/env; set +a; fi
  export REELSTREAM_TOPIC_PREFIX="ci-clients-$$-$RANDOM." REELSTREAM_STATE_DIR="$state"
  .venv/bin/python -c 'import os; from shared.topic_admin import ensure_topics
ensure_topics(os.environ["KAFKA_BOOTSTRAP_SERVERS"], prefix=os.environ["REELSTREAM_TOPIC_PREFIX"])'
  .venv/bin/reelstream services up --only wallet --only jackpot --only spin || rc=$?
  if [ "$rc" -eq 0 ]; then
    echo "--- conformance: Go client"
    .venv/bin/reelstream contract verify-client --cmd "$bin/reelspin-go" || rc=$?
    echo "--- conformance: Node.js client"
    .venv/bin/reelstream contract verify-client --cmd "node examples/clients/node/bin/reelspin.js" || rc=$?
    # An operator's client reads its own answer topic (shared/operators.py): the same client, the topic configured.
    local answers
    answers=$(.venv/bin/python -c 'from shared import operators as o
print(o.answers_topic(o.OPERATORS[0]) if o.OPERATORS else "spin.events")')
    echo "--- conformance: Go client reading $answers"
    .venv/bin/reelstream contract verify-client --cmd "$bin/reelspin-go" --answers-topic "$answers" \
      --only settles-rising-joker --only duplicated-answer || rc=$?
    clients_cashier "$bin" || rc=$?
  fi
  .venv/bin/reelstream services down || true
  # With the environment's security (the local broker is SASL_SSL only): a plaintext admin never bootstrapped here.
  .venv/bin/python -c 'import os; from shared.topic_admin import delete_prefixed
delete_prefixed(os.environ["KAFKA_BOOTSTRAP_SERVERS"], os.environ["REELSTREAM_TOPIC_PREFIX"])' \
    || echo "warning: could not delete the ${REELSTREAM_TOPIC_PREFIX} topics" >&2
  return "$rc"
}

clients_cashier() {  # an operator's cashier in each language: a signed deposit, answered on wallet.answers.<O>
  local bin=$1 operator rc=0
  operator=$(.venv/bin/python -c 'from shared import operators as o; print(o.OPERATORS[0] if o.OPERATORS else "")')
  if [ -z "$operator" ] || [ -z "${REELSTREAM_KAFKA_CLIENTS_DIR:-}" ]; then
    echo "--- cashier: skipped (no operators, or a plaintext broker without role files)"
    return 0
  fi
  local properties="$REELSTREAM_KAFKA_CLIENTS_DIR/cashier.$operator.properties"
  echo "--- cashier: Go client as cashier.$operator"
  "$bin/reelcashier-go" --properties "$properties" --operator "$operator" --topic-prefix "$REELSTREAM_TOPIC_PREFIX" \
    --player "ci-cashier-go-$$" --amount 2500 || rc=$?
  echo "--- cashier: Node.js client as cashier.$operator"
  node examples/clients/node/bin/reelcashier.js --properties "$properties" --operator "$operator" \
    --topic-prefix "$REELSTREAM_TOPIC_PREFIX" --player "ci-cashier-node-$$" --amount 2500 || rc=$?
  return "$rc"
}

clients_phase() {
  local scratch
  scratch=$(mktemp -d)
  clients_toolchains
  clients_build_and_test "$scratch"
  clients_conformance "$scratch" "$scratch/state"
  rm -rf "$scratch"
}

phase_beside clients 600 clients_phase
