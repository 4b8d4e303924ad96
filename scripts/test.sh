#!/usr/bin/env bash
# Runs every test of Loupe, each tier in turn, and ends with one line that
# counts the tests that passed and failed:
#   1. frontend: svelte-check, Vitest, production build
#   2. Go: vet, staticcheck and deadcode (each must find nothing), then unit
#      tests and the fake-Ollama tier (go test ./...)
#   3. the real Ollama tier (builds the pinned server once, then caches it)
#   4. the real Jaeger tier: the OTLP export read back through Jaeger's query
#      API (builds the pinned Jaeger once, then caches it; the first build
#      starts in the background at the start and overlaps the tiers before)
#   5. end to end: the real app driven in Chromium, and the real window
# Logs go to build/test-logs/. Set LOUPE_TEST_TIERS="go frontend" to run some.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
logs=$root/build/test-logs
mkdir -p "$logs"
tiers=${LOUPE_TEST_TIERS:-"frontend go real jaeger e2e"}
passed=0 failed=0 broken=()

./scripts/deps.sh || { echo "FAILED: installing dependencies (see above)"; exit 1; }

# count LOG: adds the tests a log reports to the totals.
count_go() {
  local p f
  p=$(grep -cE '^\s*--- PASS' "$1"); f=$(grep -cE '^\s*--- FAIL' "$1")
  passed=$((passed + p)); failed=$((failed + f))
}
count_vitest() {
  local line p f
  line=$(grep -E '^\s+Tests\s' "$1" | tail -1)
  p=$(echo "$line" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+'); f=$(echo "$line" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+')
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
}
count_node() {
  local p f
  p=$(grep -E '^. pass [0-9]+' "$1" | tail -1 | grep -oE '[0-9]+'); f=$(grep -E '^. fail [0-9]+' "$1" | tail -1 | grep -oE '[0-9]+')
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
}
# go_failures LOG: each failed Go test's name and what it printed (a test's
# lines are kept by the === RUN/CONT line before them, so parallel tests'
# output stays apart), and any panic with what follows it. The run prints
# these last, where a reader of a cut-short log still finds them.
go_failures() {
  awk '
    /^=== (RUN|CONT|PAUSE|NAME)/ { cur = $3; next }
    /^[ \t]*--- FAIL: / {
      name = $3; print "    FAIL " name
      n = split(buf[name], lines, "\n"); from = n > 41 ? n - 40 : 1
      for (i = from; i < n; i++) print "    | " lines[i]
      next
    }
    /^panic: / { panicking = 30 }
    panicking > 0 { print "    | " $0; panicking--; next }
    cur != "" { buf[cur] = buf[cur] $0 "\n" }
  ' "$1"
}
failures=()
# run NAME LOG CMD...: runs a step, shows its log's tail on failure.
run() {
  local name=$1 log=$2; shift 2
  echo "==> $name"
  local start=$SECONDS
  if "$@" >"$log" 2>&1; then
    echo "    ok in $((SECONDS - start)) s ($(basename "$log"))"
    return 0
  fi
  step_failed "$name" "$log" "$start"
  return 1
}
# step_failed NAME LOG START: says a step failed, with its log's tail.
step_failed() {
  echo "    FAILED after $((SECONDS - $3)) s: $1 — last lines of $2:"
  tail -n 60 "$2" | sed 's/^/    | /'
  broken+=("$1")
}
has() { [[ " $tiers " == *" $1 "* ]]; }

# Jaeger's first build takes about 20 min on 2 cores (see
# scripts/real-jaeger/README.md), so it starts now, in the background at the
# lowest priority, and overlaps the tiers before its own; a cached Jaeger
# makes it return at once. It runs in a session of its own, so that a run
# that ends early (Ctrl+C, a failed install) ends it too.
jaeger_log=$logs/real-jaeger-build.log jaeger_build=""
if has jaeger; then
  echo "==> real Jaeger: build or reuse the pinned Jaeger, in the background ($(basename "$jaeger_log"))"
  setsid -w nice -n 19 scripts/real-jaeger/build.sh >"$jaeger_log" 2>&1 &
  jaeger_build=$! jaeger_start=$SECONDS
  trap '[ -n "$jaeger_build" ] && kill -- -"$jaeger_build" 2>/dev/null' EXIT
fi

if has frontend || has go || has e2e; then
  run "frontend: svelte-check" "$logs/frontend-check.log" bash -c 'cd frontend && npm run check'
  run "frontend: vitest" "$logs/frontend-test.log" bash -c 'cd frontend && npm test'; count_vitest "$logs/frontend-test.log"
  # Go embeds frontend/dist and the shared replay's page (backend/viewer/dist,
  # which the same build writes), so the build comes before any go command.
  run "frontend: build" "$logs/frontend-build.log" bash -c 'cd frontend && npm run build'
fi
if has go; then
  run "go: vet" "$logs/go-vet.log" go vet ./...
  # The linters run at a pinned version through the module proxy (go run
  # fetches each once into the module cache); neither is a dependency of
  # the module.
  run "go: staticcheck" "$logs/go-staticcheck.log" go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
  # deadcode reports functions nothing reaches (from main or a test) and
  # exits 0 either way: any line it prints fails the step.
  run "go: deadcode" "$logs/go-deadcode.log" bash -c \
    'out=$(go run golang.org/x/tools/cmd/deadcode@v0.52.0 -test ./...) || exit 1; [ -z "$out" ] || { echo "$out"; echo "unreachable: remove them or use them"; exit 1; }'
  run "go: unit and fake-Ollama tests" "$logs/go-test.log" go test -count=1 -timeout 30m -v ./...
  count_go "$logs/go-test.log"; failures+=("$logs/go-test.log")
  # Skips are expected only for the real tier, which runs next; name any other.
  awk '/^[ \t]*--- SKIP/ { if (prev !~ /tier not requested/) print "    " $0; n++ } { prev = $0 }
       END { print "    " n + 0 " skipped (those the real Ollama tier runs, and any named above)" }' "$logs/go-test.log"
fi
if has real; then
  run "real Ollama: build or reuse the pinned server" "$logs/real-ollama-build.log" scripts/real-ollama/build.sh
  run "real Ollama: scenarios and conformance" "$logs/real-ollama-test.log" \
    env LOUPE_REAL_OLLAMA=1 go test -count=1 -timeout 30m -v ./testkit/...
  count_go "$logs/real-ollama-test.log"; failures+=("$logs/real-ollama-test.log")
fi
if has jaeger; then
  echo "==> real Jaeger: the build started in the background $((SECONDS - jaeger_start)) s ago"
  # The wait has a bound, so that a build that hangs (a stalled module
  # download) fails this tier with its log instead of using up the run.
  waited=$SECONDS next=$SECONDS bound=${LOUPE_JAEGER_BUILD_BOUND:-3000}
  while kill -0 "$jaeger_build" 2>/dev/null; do
    if ((SECONDS - jaeger_start >= bound)); then
      echo "    the Jaeger build has run $((bound / 60)) min, past its bound: stopping it"
      kill -- -"$jaeger_build" 2>/dev/null
      break
    fi
    if ((SECONDS >= next)); then
      last=$(tail -n 1 "$jaeger_log")
      echo "    waiting for the Jaeger build, $(((SECONDS - jaeger_start) / 60)) min in (the first takes about 20 min on 2 cores)${last:+: $last}"
      next=$((SECONDS + 60))
    fi
    sleep 2
  done
  wait "$jaeger_build"; built=$?; jaeger_build=""
  if ((built == 0)); then
    how=$(grep -E '^real-jaeger/build: (using|built in)' "$jaeger_log" | tail -n 1)
    echo "    ok, waited $((SECONDS - waited)) s: ${how#real-jaeger/build: } ($(basename "$jaeger_log"))"
    run "real Jaeger: the exported session read back through Jaeger's query API" "$logs/real-jaeger-test.log" \
      scripts/real-jaeger/test.sh -v ./testkit/realjaeger/
    count_go "$logs/real-jaeger-test.log"; failures+=("$logs/real-jaeger-test.log")
  else
    step_failed "real Jaeger: build" "$jaeger_log" "$jaeger_start"
    # Its test cannot run without it: the build counts as that failed test.
    echo "    the Jaeger round trip did not run: no Jaeger; counted as 1 failed test"
    failed=$((failed + 1))
  fi
fi
if has e2e; then
  run "e2e: install" "$logs/e2e-install.log" bash -c 'cd e2e && npm ci --no-audit --no-fund --loglevel=error'
  run "e2e: browser and real window" "$logs/e2e.log" bash -c 'cd e2e && npm test'
  count_node "$logs/e2e.log"
fi

echo
if ((${#broken[@]})); then
  echo "Steps that failed: ${broken[*]}"
  # A step that broke before counting its tests still fails the run.
  ((failed == 0)) && failed=${#broken[@]}
  for log in "${failures[@]}"; do
    out=$(go_failures "$log")
    [ -n "$out" ] && { echo "Failed Go tests in $(basename "$log"):"; echo "$out"; }
  done
  # The Node runner marks a failed test "not ok" and prints its reason under it.
  if has e2e && grep -q '^\s*not ok' "$logs/e2e.log" 2>/dev/null; then
    echo "Failed e2e tests:"; grep -A 25 '^\s*not ok' "$logs/e2e.log" | head -n 120 | sed 's/^/    | /'
  fi
fi
echo "all tiers took $((SECONDS / 60)) min $((SECONDS % 60)) s"
echo "tests: $passed passed, $failed failed"
((${#broken[@]} == 0 && failed == 0))
