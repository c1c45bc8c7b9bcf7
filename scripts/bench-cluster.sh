#!/usr/bin/env bash
# The collectives across the namespace cluster (docs/cluster.md): bench_coll at NODES x PPN units
# per link rate and MPI, every Shoal algorithm (the flat ones and the node-aware ones) against the
# MPI's native collective in the same run. With --bench fence: bench_fence instead (every fence
# design against MPI_Win_fence on an MPI_Win_allocate window, both over TCP between nodes).
# Builds nothing: point it at Release build trees.
#
#   scripts/bench-cluster.sh [--bench coll|fence] [--nodes 2] [--ppn 2] [--rates "1gbit 10gbit"] (none: unshaped) [--mpis "mpich openmpi"]
#                            [--only barrier,broadcast,collect,fcollect,reduce] [--max-size 1M]
#                            [--build-prefix build/bench-] [--out results/cluster] [--batch-us T]
#
# --only, --max-size and --batch-us go to the benchmark (bench_fence's default --only:
# fence,halo,coll). Shaped links let a burst through at full speed (the tbf bucket holds 2 ms of
# the rate, docs/cluster.md): batches of --batch-us well above that measure the rate itself.
# Writes OUT/<bench>_<mpi>_<rate>_<nodes>x<ppn>.csv and .txt (the CSV and its tables). The
# cluster is its own (SHOAL_CLUSTER_PREFIX=shoalbench), made per rate and torn down at the end, also
# on failure or interrupt. Needs root. Nothing else should run meanwhile: the links are namespaces
# on this machine's CPUs, so a busy CPU is a slow network.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
nodes=2 ppn=2 rates="1gbit 10gbit" mpis="mpich openmpi" bench=coll
only="" max_size=1M batch_us=""
prefix_dir="$root/build/bench-" out="$root/results/cluster"
while [ $# -gt 0 ]; do
    case "$1" in
    --bench) bench="$2" ;;
    --nodes) nodes="$2" ;;
    --ppn) ppn="$2" ;;
    --rates) rates="$2" ;;
    --mpis) mpis="$2" ;;
    --only) only="$2" ;;
    --max-size) max_size="$2" ;;
    --batch-us) batch_us="$2" ;;
    --build-prefix) prefix_dir="$2" ;;
    --out) out="$2" ;;
    *)
        sed -n '2,18p' "${BASH_SOURCE[0]}" >&2
        exit 2
        ;;
    esac
    shift 2
done
case "$bench" in
coll) only="${only:-barrier,broadcast,collect,fcollect,reduce}" extra=() ;;
fence) only="${only:-fence,halo,coll}" extra=(--batches 11) ;;
*) echo "bench-cluster: --bench coll or fence, not $bench" >&2 && exit 2 ;;
esac

[ -n "$batch_us" ] && extra+=(--batch-us "$batch_us")
export SHOAL_CLUSTER_PREFIX=shoalbench
cluster="$root/scripts/cluster.sh"
trap '"$cluster" down >/dev/null 2>&1 || true' EXIT INT TERM
mkdir -p "$out"
np=$((nodes * ppn))
cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
for rate in $rates; do
    if [ "$rate" = none ]; then # unshaped: as fast as the namespaces' veths go
        "$cluster" up "$nodes" >/dev/null
    else
        "$cluster" up "$nodes" --rate "$rate" >/dev/null
    fi
    for mpi in $mpis; do
        build="${prefix_dir}${mpi}"
        [ -x "$build/bench/bench_$bench" ] || {
            echo "bench-cluster: no $build/bench/bench_$bench (build it in Release first)" >&2
            exit 1
        }
        # (On MPICH, shoalrun --nodes preloads the shim for UCX's exit hang: docs/cluster.md.)
        name="${bench}_${mpi}_${rate}_${nodes}x${ppn}"
        echo "=== bench_$bench, $mpi, $nodes nodes x $ppn units, links shaped to $rate ($cpu)"
        "$build/bin/shoalrun" --nodes "$nodes" -n "$np" "$build/bench/bench_$bench" \
            --only "$only" --max-size "$max_size" "${extra[@]}" --csv "$out/$name.csv" |
            tee "$out/$name.txt"
    done
    "$cluster" down >/dev/null
done
