#!/usr/bin/env bash
# Entrypoint of a GPU prover image: tune the daemon to this machine, benchmark it with the
# daemon started and watched by cuzkit, keep the report, then serve with the tuned config.
# A slow or failed benchmark is recorded, never fatal: unlike the incidents' `set -e`
# benchmark.sh, one bad proof does not take down the machine's whole lifecycle.
#
# Correct as PID 1: bash ignores SIGTERM there unless it traps it, so every step runs in the
# background and the traps below forward SIGTERM/SIGINT/SIGHUP to it; `cuzkit bench` then writes
# its report and stops the daemon it started, and the serving daemon is stopped (SIGKILL after
# STOP_GRACE seconds if it ignores SIGTERM). Run it under an init anyway (tini, `docker run
# --init`) so orphans are reaped; see README.md.
set -uo pipefail

: "${CUZKIT:=cuzkit}"                          # the cuzkit command
: "${CUZK_DAEMON:=cuzk-daemon}"                # the daemon (the tests use `cuzkit sim`)
: "${CUZK_ADDR:=127.0.0.1:9820}"
: "${CUZK_C1:=/data/32gbench/c1.json}"         # a PoRep C1 output to benchmark with
: "${CUZKIT_MACHINE:=--detect}"                # or e.g. "--ram 251GiB --cores 32 --gpus 2xRTX3090"
: "${OUT_DIR:=/data/cuzkit}"
: "${PARAM_CACHE:=/data/zk/params}"            # the daemon's srs.param_cache (PCE files go here)
: "${BENCH_COUNT:=12}"
: "${MIN_PROOFS_PER_HOUR:=30}"
: "${BENCH_FLAGS:=}"                           # extra `cuzkit bench` flags, e.g. --early-verdict
: "${STOP_GRACE:=20}"                          # seconds between SIGTERM and SIGKILL of the daemon

child=""
killer=""
stopping=""
forward() {
  stopping="$1"
  if [ -n "$child" ]; then
    kill -s "$1" "$child" 2>/dev/null
    # A daemon that ignores SIGTERM is killed after the grace period.
    ( sleep "$STOP_GRACE"; kill -s KILL "$child" 2>/dev/null ) &
    killer=$!
  fi
}
trap 'forward TERM' TERM
trap 'forward INT' INT
trap 'forward HUP' HUP

# Runs a command in the background and waits for it; a trapped signal interrupts `wait`, so wait
# again until the child has really ended. Returns its exit status.
run() {
  "$@" &
  child=$!
  local status=0
  wait "$child" || status=$?
  while kill -0 "$child" 2>/dev/null; do
    status=0
    wait "$child" || status=$?
  done
  child=""
  if [ -n "$killer" ]; then kill "$killer" 2>/dev/null; killer=""; fi
  return "$status"
}

# Ends the container after a signal: 128 + the signal's number, as a killed process would.
stop_if_signalled() {
  [ -z "$stopping" ] && return 0
  echo "entrypoint: stopped by SIG$stopping" >&2
  case "$stopping" in TERM) exit 143 ;; INT) exit 130 ;; *) exit 129 ;; esac
}

mkdir -p "$OUT_DIR" || exit 1

# 1. Size the daemon to this machine (container limits included); keep the reasons.
run $CUZKIT tune $CUZKIT_MACHINE --format toml --out "$OUT_DIR/cuzk.toml" || { stop_if_signalled; exit 1; }
run $CUZKIT tune $CUZKIT_MACHINE --format text > "$OUT_DIR/tune.txt"
stop_if_signalled

# 2. Benchmark: warmup with the warmup plan, wait for the PCE file, restart, timed batch, verdict
#    (exit 0 MET, 2 BELOW, 3 UNSTABLE, 1 FAILED). The daemon's output goes to daemon.log; the
#    current phase and results to bench-status.json while it runs.
status=0
run $CUZKIT bench --spawn "$CUZK_DAEMON --config {config} --listen {addr}" --addr "$CUZK_ADDR" \
  --c1 "$CUZK_C1" $CUZKIT_MACHINE --concurrency auto --count "$BENCH_COUNT" \
  --min-proofs-per-hour "$MIN_PROOFS_PER_HOUR" --on-crash restart --param-cache "$PARAM_CACHE" \
  --daemon-log "$OUT_DIR/daemon.log" --status-file "$OUT_DIR/bench-status.json" \
  --out "$OUT_DIR/bench.jsonl" $BENCH_FLAGS > "$OUT_DIR/bench.txt" || status=$?
echo "$status" > "$OUT_DIR/bench.status"
echo "benchmark: $(tail -n 1 "$OUT_DIR/bench.txt")"
stop_if_signalled

# 3. Serve with the tuned config, output appended to the same log, until a signal stops it.
echo "serving on $CUZK_ADDR; daemon output in $OUT_DIR/daemon.log"
run $CUZK_DAEMON --config "$OUT_DIR/cuzk.toml" --listen "$CUZK_ADDR" >> "$OUT_DIR/daemon.log" 2>&1
status=$?
[ -n "$stopping" ] && exit 0
echo "entrypoint: the daemon exited with $status" >&2
exit "$status"
