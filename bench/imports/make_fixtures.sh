#!/usr/bin/env bash
# Make the import tests' fixtures by running the real tools against fake_endpoint.py:
#   inspect_ai (pip install inspect-ai openai), promptfoo (npm install promptfoo@0.121.20) and
#   lm-evaluation-harness (pip install lm-eval, in a venv of its own; offline: a local dataset).
#
#   INSPECT=inspect PROMPTFOO=/path/node_modules/.bin/promptfoo bash bench/imports/make_fixtures.sh
#   TOOLS=promptfoo bash bench/imports/make_fixtures.sh     # one tool only
#   LM_EVAL=/path/venv/bin/lm_eval TOOLS=lm-eval bash bench/imports/make_fixtures.sh
#
# Writes tests/fixtures/imports/: inspect-run1.eval, inspect-run2.eval (another seed: a second
# run to compare), inspect-run1.json (inspect's own conversion of run 1), inspect-tools.eval/.json
# (a conversation with tool calls, one failing), promptfoo-results.json,
# lm-eval/run1..5/ (five runs of one task: lm-eval scores a document once per run).
set -eu -o pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$HERE/../../tests/fixtures/imports}
INSPECT=${INSPECT:-inspect}
PROMPTFOO=${PROMPTFOO:-promptfoo}
LM_EVAL=${LM_EVAL:-lm_eval}
WORK=$(mktemp -d)
mkdir -p "$OUT"
trap 'kill $SERVER 2>/dev/null || true; rm -rf "$WORK"' EXIT

serve() {  # serve SEED: start fake_endpoint.py, set PORT
  [ -n "${SERVER:-}" ] && kill "$SERVER" 2>/dev/null || true
  python3 "$HERE/fake_endpoint.py" --port 0 --seed "$1" > "$WORK/url" &
  SERVER=$!
  for _ in $(seq 50); do [ -s "$WORK/url" ] && break; sleep 0.1; done
  PORT=$(sed -E 's#.*:([0-9]+)/v1#\1#' "$WORK/url")
}

run_inspect() {  # run_inspect SEED NAME [TASK]
  serve "$1"
  rm -rf "$WORK/logs"
  (cd "$HERE" && XDG_DATA_HOME="$WORK/xdg" FAKE_BASE_URL="http://127.0.0.1:$PORT/v1" FAKE_API_KEY=x \
    timeout 300 "$INSPECT" eval "${3:-inspect_task.py}" --model openai-api/fake/fake-model \
    --log-dir "$WORK/logs" --display plain --no-fail-on-error > "$WORK/inspect-$2.txt" 2>&1)
  cp "$WORK"/logs/*.eval "$OUT/inspect-$2.eval"
}

TOOLS=${TOOLS:-inspect promptfoo lm-eval}
if [[ " $TOOLS " == *" inspect "* ]]; then
  run_inspect 7 run1
  run_inspect 8 run2
  "$INSPECT" log convert --to json --output-dir "$WORK/json" "$OUT/inspect-run1.eval"
  cp "$WORK"/json/*.json "$OUT/inspect-run1.json"
  run_inspect 3 tools inspect_tools_task.py  # a conversation with tools: its transcript
  rm -rf "$WORK/json"
  "$INSPECT" log convert --to json --output-dir "$WORK/json" "$OUT/inspect-tools.eval"
  cp "$WORK"/json/*.json "$OUT/inspect-tools.json"
fi
if [[ " $TOOLS " == *" lm-eval "* ]]; then
  serve 5
  mkdir -p "$WORK/lm-task"
  python3 -c 'import json,sys
rows = [{"question": f"What is 17 * 23? Reply with the number only. (#{n})", "answer": "391"} for n in range(1, 5)]
rows.append({"question": "What is 17 * 23? Reply with the number only. (#5)", "answer": "17"})
sys.stdout.write("".join(json.dumps(r) + "\n" for r in rows))' > "$WORK/lm-task/cases.jsonl"
  sed "s#CASES#$WORK/lm-task/cases.jsonl#" "$HERE/lm_eval_task/arithmetic_fake.yaml" > "$WORK/lm-task/arithmetic_fake.yaml"
  rm -rf "$OUT/lm-eval"
  for n in 1 2 3 4 5; do
    (cd "$WORK" && HF_DATASETS_OFFLINE=1 HF_HUB_OFFLINE=1 HF_HOME="$WORK/hf" timeout 300 "$LM_EVAL" \
      --model local-chat-completions \
      --model_args "model=fake-model,base_url=http://127.0.0.1:$PORT/v1/chat/completions,num_concurrent=1,max_retries=1,tokenized_requests=False,tokenizer_backend=None" \
      --tasks arithmetic_fake --include_path "$WORK/lm-task" --apply_chat_template \
      --log_samples --output_path "$WORK/lm-out$n" --seed "$n" > "$WORK/lm-eval-$n.txt" 2>&1)
    mkdir -p "$OUT/lm-eval/run$n"
    cp "$WORK/lm-out$n"/fake-model/*.json* "$OUT/lm-eval/run$n/"
  done
fi
[[ " $TOOLS " == *" promptfoo "* ]] || exit 0
serve 9
sed "s/PORT/$PORT/" "$HERE/promptfooconfig.yaml" > "$WORK/promptfooconfig.yaml"
(cd "$WORK" && PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1 PROMPTFOO_DISABLE_DEBUG_LOG=1 \
  PROMPTFOO_CONFIG_DIR="$WORK/pf-config" HTTPS_PROXY=http://127.0.0.1:9 NO_PROXY=127.0.0.1 \
  timeout 300 "$PROMPTFOO" eval -c promptfooconfig.yaml --repeat 5 --no-cache --no-table \
  --no-progress-bar -o "$OUT/promptfoo-results.json" > "$WORK/promptfoo.txt" 2>&1) || [ $? -eq 100 ]
ls -l "$OUT"
