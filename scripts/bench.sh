#!/usr/bin/env bash
# Reproduces the README's benchmark tables.
#
# Usage: scripts/bench.sh [-rounds N] [-benchtime D] [-out DIR] [PACKAGE...]
#   PACKAGE is mapping, mapping/urlencoded, middleware or mailhdr (default: all four);
#   N defaults to 6, D to 300ms, DIR to a new folder under /tmp. DIR must
#   not hold the output of an earlier run.
#
# It builds each package's test binary once, then runs the binaries in
# rounds, one run of each per round (-test.count 1), so that a slow spell of
# a shared machine falls on every benchmark of a round alike rather than on
# whichever benchmarks happened to run then. The raw output goes to
# DIR/<package>.txt (go test's benchmark format, with / in a package's
# path written -); standard output gets the README's tables, from medians
# over the rounds (scripts/benchtable). For confidence intervals, run
# benchstat (golang.org/x/perf/cmd/benchstat) on the raw files.
set -euo pipefail

usage() { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "bench.sh: $*" >&2; exit 2; }

rounds=6
benchtime=300ms
out=
while [ $# -gt 0 ]; do
	case "$1" in
	-rounds | -benchtime | -out) [ $# -ge 2 ] || die "$1 needs a value" ;;
	esac
	case "$1" in
	-rounds) rounds=$2; shift 2 ;;
	-benchtime) benchtime=$2; shift 2 ;;
	-out) out=$2; shift 2 ;;
	-h | -help | --help) usage; exit 0 ;;
	-*) die "unknown flag $1" ;;
	*) break ;;
	esac
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "-rounds wants a positive number, not '$rounds'"
pkgs=("$@")
[ ${#pkgs[@]} -gt 0 ] || pkgs=(mapping mapping/urlencoded middleware mailhdr)
for p in "${pkgs[@]}"; do
	case "$p" in
	mapping | mapping/urlencoded | middleware | mailhdr) ;;
	*) die "no benchmarks in '$p' (mapping, mapping/urlencoded, middleware or mailhdr)" ;;
	esac
done

if [ -n "$out" ]; then
	mkdir -p "$out"
	out=$(cd "$out" && pwd) # before the cd below, so a relative DIR is the caller's
	! compgen -G "$out/*.txt" >/dev/null || die "$out holds the output of an earlier run"
else
	out=$(mktemp -d /tmp/cturi-bench.XXXXXX)
fi
cd "$(dirname "$0")/.."
bin=$(mktemp -d /tmp/cturi-bench-bin.XXXXXX)
trap 'rm -rf "$bin"' EXIT

name() { echo "${1//\//-}"; }
for p in "${pkgs[@]}"; do
	go test -c -o "$bin/$(name "$p").test" "./$p"
done

for r in $(seq "$rounds"); do
	echo "round $r of $rounds" >&2
	for p in "${pkgs[@]}"; do
		n=$(name "$p")
		# From the package's directory, as go test runs it (testdata paths).
		(cd "$p" && "$bin/$n.test" -test.run '^$' -test.bench . \
			-test.benchtime "$benchtime" -test.count 1) >>"$out/$n.txt"
	done
done

echo "raw output in $out" >&2
go run ./scripts/benchtable "$out"
