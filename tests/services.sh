# Sourced by tests/run.sh: starts the real servers the tests talk to, on loopback, exports
# their addresses, and stops them when the script exits. Ports can be overridden.
#   MongoDB protocol: secantusdb   -> MONGODB_URI
#   DynamoDB, SQS, EventBridge, Scheduler: moto server (patched for concurrent DynamoDB
#   transactions: shared/store-dynamodb/moto) -> AGORA_AWS_ENDPOINT
#   NATS: nats-server              -> NATS_URL

AGORA_MONGO_PORT="${AGORA_MONGO_PORT:-27117}"
AGORA_MOTO_PORT="${AGORA_MOTO_PORT:-5055}"
AGORA_NATS_PORT="${AGORA_NATS_PORT:-4333}"
SERVICES_DIR="${SERVICES_DIR:-target/services}"
SERVICE_PIDS=()

wait_for_port() { # name port
  for _ in $(seq 1 150); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$2") 2>/dev/null; then return 0; fi
    sleep 0.2
  done
  echo "$1 did not start on port $2; its log:" >&2
  cat "$SERVICES_DIR/$1.log" >&2 || true
  return 1
}

start_service() { # name port command...
  local name=$1 port=$2; shift 2
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "$name: port $port already answers; using it" >&2
    return 0
  fi
  "$@" >"$SERVICES_DIR/$name.log" 2>&1 &
  SERVICE_PIDS+=($!)
  wait_for_port "$name" "$port"
}

stop_services() {
  for pid in "${SERVICE_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
}

start_services() {
  mkdir -p "$SERVICES_DIR"
  trap stop_services EXIT
  # With its test commands: the MongoDB crash test (orcade::crash) holds a commit with a
  # failCommand failpoint to kill the server inside a transaction.
  start_service mongodb "$AGORA_MONGO_PORT" .venv/bin/secantusd-py --host 127.0.0.1 --port "$AGORA_MONGO_PORT" --storage-path :memory: --log-level WARNING --enable-test-commands
  # moto's own server, with its DynamoDB made safe for concurrent transactions (see the file).
  start_service moto "$AGORA_MOTO_PORT" .venv/bin/python shared/store-dynamodb/moto/agora_moto_server.py -H 127.0.0.1 -p "$AGORA_MOTO_PORT"
  start_service nats "$AGORA_NATS_PORT" .venv/bin/nats-server -a 127.0.0.1 -p "$AGORA_NATS_PORT"
  export MONGODB_URI="mongodb://127.0.0.1:$AGORA_MONGO_PORT"
  export AGORA_AWS_ENDPOINT="http://127.0.0.1:$AGORA_MOTO_PORT"
  export AGORA_DYNAMODB_ENDPOINT="$AGORA_AWS_ENDPOINT"
  export NATS_URL="nats://127.0.0.1:$AGORA_NATS_PORT"
  export AWS_ACCESS_KEY_ID="${AWS_ACCESS_KEY_ID:-testing}" AWS_SECRET_ACCESS_KEY="${AWS_SECRET_ACCESS_KEY:-testing}"
  export AWS_REGION="${AWS_REGION:-us-east-1}" AWS_DEFAULT_REGION="${AWS_DEFAULT_REGION:-us-east-1}"
}
