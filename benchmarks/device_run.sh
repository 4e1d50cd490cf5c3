#!/usr/bin/env bash
# The GPU figures of benchmarks/README.md in one run: the on-device scan of every JAX id at
# N = 2^10 ... 2^20 (jax_throughput.py) and PPO in JAX trained on the device (baselines/ppo_jax.py)
# on MarketMakingAS-v1 and Serverless-v1. Each stage has its own time limit, so that one stage
# that fails or runs long leaves the others' figures. Output goes to $OUT (default: ./device-out).
#
#     bash benchmarks/device_run.sh                       # the full run (an accelerator)
#     LIGHT_LOG2="10" HEAVY_LOG2="10" AS_STEPS=100000 SERVERLESS_STEPS=20000 bash benchmarks/device_run.sh
#                                                         # a quick check of the script (a CPU)
set -u
OUT=${OUT:-device-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
PYTHON=${PYTHON:-python3}
LIGHT_LOG2=${LIGHT_LOG2:-10 12 14 16 18 20}
HEAVY_LOG2=${HEAVY_LOG2:-10 14 17 20}
AS_STEPS=${AS_STEPS:-50000000}
SERVERLESS_STEPS=${SERVERLESS_STEPS:-5000000}

stage() {  # stage NAME SECONDS COMMAND...: run COMMAND under a time limit, its output in $OUT/NAME.txt
    local name=$1 limit=$2
    shift 2
    echo "== $name (limit ${limit} s): $*"
    timeout "$limit" "$@" 2>&1 | tee "$OUT/$name.txt"
    echo "== $name: exit ${PIPESTATUS[0]}"
}

stage device 60 "$PYTHON" -c "import jax, numpy; print('jax', jax.__version__, 'numpy', numpy.__version__, jax.devices())"
stage throughput_light 110 "$PYTHON" benchmarks/jax_throughput.py --steps 100 --log2 $LIGHT_LOG2 --ids \
    envzoo/MarketMakingAS-v1 envzoo/Portfolio-v1 envzoo/PortfolioMO-v0 envzoo/Trading-v1 envzoo/TradingMO-v1
stage ppo_as 90 "$PYTHON" baselines/ppo_jax.py envzoo/MarketMakingAS-v1 --timesteps "$AS_STEPS" \
    --num-envs 4096 --num-steps 64 --reference-episodes 20 --out "$OUT/ppo_jax_MarketMakingAS-v1_device.json"
stage ppo_serverless 150 "$PYTHON" baselines/ppo_jax.py envzoo/Serverless-v1 --timesteps "$SERVERLESS_STEPS" \
    --num-envs 8192 --num-steps 30 --eval-episodes 256 --reference-episodes 5 \
    --out "$OUT/ppo_jax_Serverless-v1_device.json"
stage throughput_heavy 120 "$PYTHON" benchmarks/jax_throughput.py --steps 10 --log2 $HEAVY_LOG2 --ids \
    envzoo/Serverless-v1 envzoo/CollisionAvoidance-v1
# The cores added after the H200 run of 2026-12-04: promotion (light) and the limit-order-book replay.
stage throughput_added 60 "$PYTHON" benchmarks/jax_throughput.py --steps 10 --log2 $HEAVY_LOG2 --ids \
    envzoo/Promotion-v1 envzoo/MarketMaking-v1
# The cluster scheduler's core (2026-12-05): a few dozen array operations a step, no loop.
stage throughput_scheduling 60 "$PYTHON" benchmarks/jax_throughput.py --steps 100 --log2 $LIGHT_LOG2 --ids \
    envzoo/SchedulingCluster-v0
