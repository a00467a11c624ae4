#!/usr/bin/env bash
# Make the import tests' fixtures by running the real tools against fake_endpoint.py:
#   inspect_ai (pip install inspect-ai openai) and promptfoo (npm install promptfoo@0.121.20).
#
#   INSPECT=inspect PROMPTFOO=/path/node_modules/.bin/promptfoo bash bench/imports/make_fixtures.sh
#   TOOLS=promptfoo bash bench/imports/make_fixtures.sh     # one tool only
#
# Writes tests/fixtures/imports/: inspect-run1.eval, inspect-run2.eval (another seed: a second
# run to compare), inspect-run1.json (inspect's own conversion of run 1), promptfoo-results.json.
set -eu -o pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$HERE/../../tests/fixtures/imports}
INSPECT=${INSPECT:-inspect}
PROMPTFOO=${PROMPTFOO:-promptfoo}
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

run_inspect() {  # run_inspect SEED NAME
  serve "$1"
  rm -rf "$WORK/logs"
  (cd "$HERE" && XDG_DATA_HOME="$WORK/xdg" FAKE_BASE_URL="http://127.0.0.1:$PORT/v1" FAKE_API_KEY=x \
    timeout 300 "$INSPECT" eval inspect_task.py --model openai-api/fake/fake-model \
    --log-dir "$WORK/logs" --display plain --no-fail-on-error > "$WORK/inspect-$2.txt" 2>&1)
  cp "$WORK"/logs/*.eval "$OUT/inspect-$2.eval"
}

TOOLS=${TOOLS:-inspect promptfoo}
if [[ " $TOOLS " == *" inspect "* ]]; then
  run_inspect 7 run1
  run_inspect 8 run2
  "$INSPECT" log convert --to json --output-dir "$WORK/json" "$OUT/inspect-run1.eval"
  cp "$WORK"/json/*.json "$OUT/inspect-run1.json"
fi
[[ " $TOOLS " == *" promptfoo "* ]] || exit 0
serve 9
sed "s/PORT/$PORT/" "$HERE/promptfooconfig.yaml" > "$WORK/promptfooconfig.yaml"
(cd "$WORK" && PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1 PROMPTFOO_DISABLE_DEBUG_LOG=1 \
  PROMPTFOO_CONFIG_DIR="$WORK/pf-config" HTTPS_PROXY=http://127.0.0.1:9 NO_PROXY=127.0.0.1 \
  timeout 300 "$PROMPTFOO" eval -c promptfooconfig.yaml --repeat 5 --no-cache --no-table \
  --no-progress-bar -o "$OUT/promptfoo-results.json" > "$WORK/promptfoo.txt" 2>&1) || [ $? -eq 100 ]
ls -l "$OUT"
