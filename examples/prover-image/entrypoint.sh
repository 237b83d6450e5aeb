#!/usr/bin/env bash
# Entrypoint of a GPU prover image: tune the daemon to this machine, benchmark it with the
# daemon started and watched by cuzkit, keep the report, then serve with the tuned config.
# A slow or failed benchmark is recorded, never fatal: unlike the incidents' `set -e`
# benchmark.sh, one bad proof does not take down the machine's whole lifecycle.
set -uo pipefail

: "${CUZKIT:=cuzkit}"                          # the cuzkit command
: "${CUZK_DAEMON:=cuzk-daemon}"                # the daemon (the tests use `cuzkit sim`)
: "${CUZK_ADDR:=127.0.0.1:9820}"
: "${CUZK_C1:=/data/32gbench/c1.json}"         # a PoRep C1 output to benchmark with
: "${CUZKIT_MACHINE:=--detect}"                # or e.g. "--ram 251GiB --cores 32 --gpus 2xRTX3090"
: "${OUT_DIR:=/data/cuzkit}"
: "${BENCH_COUNT:=12}"
: "${MIN_PROOFS_PER_HOUR:=30}"

mkdir -p "$OUT_DIR" || exit 1

# 1. Size the daemon to this machine (container limits included); keep the reasons.
$CUZKIT tune $CUZKIT_MACHINE --format toml --out "$OUT_DIR/cuzk.toml" || exit 1
$CUZKIT tune $CUZKIT_MACHINE --format text > "$OUT_DIR/tune.txt"

# 2. Benchmark: warmup with the warmup plan, restart, timed batch, verdict (exit 0/2/1).
$CUZKIT bench --spawn "$CUZK_DAEMON --config {config} --listen {addr}" --addr "$CUZK_ADDR" \
  --c1 "$CUZK_C1" $CUZKIT_MACHINE --concurrency auto --count "$BENCH_COUNT" \
  --min-proofs-per-hour "$MIN_PROOFS_PER_HOUR" --on-crash restart \
  --out "$OUT_DIR/bench.jsonl" > "$OUT_DIR/bench.txt"
echo "$?" > "$OUT_DIR/bench.status"
echo "benchmark: $(tail -n 1 "$OUT_DIR/bench.txt")"

# 3. Serve with the tuned config.
exec $CUZK_DAEMON --config "$OUT_DIR/cuzk.toml" --listen "$CUZK_ADDR"
