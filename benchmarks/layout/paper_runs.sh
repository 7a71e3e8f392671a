#!/bin/sh
# The simulator runs behind the tables of docs/layout.md. Run from the repository root:
#   sh benchmarks/layout/paper_runs.sh
# (TPC-H is generated once by tpchgen-cli into .cache/tpch.)
set -e
SIM="python -m benchmarks.layout_sim.simulate --cache ${CACHE:-.cache/tpch} --seed 0"
OUT=benchmarks/layout/results
export PYTHONPATH=python
mkdir -p $OUT
# Amoeba Figure 11: 200 interleaved TPC-H template queries on denormalized lineitem (SF 0.1)
$SIM --data tpch --scale 0.1 --workload tpch --queries 200 --history 100 --block-rows 290 \
     --methods fullscan,range,kd,amoeba,amoeba-hinted,adaptive,zorder,hilbert,qdtree,paw --out $OUT/tpch.json
$SIM --data tpch --scale 0.1 --workload tpch --queries 200 --block-rows 290 --objective ratio \
     --methods adaptive --out $OUT/tpch-ratio.json
# Amoeba's worst cases: random attributes (10% selectivity), and 4 attributes x 5 one-shot queries
$SIM --data tpch --scale 0.1 --workload random --queries 100 --block-rows 290 \
     --methods fullscan,amoeba,adaptive --out $OUT/worst-random.json
$SIM --data tpch --scale 0.1 --workload oneshot --block-rows 290 \
     --methods fullscan,amoeba,adaptive --out $OUT/worst-oneshot.json
# Amoeba Figure 13 in spirit: a shifting IoT-like workload on the synthetic web-log
$SIM --data weblog --rows 500000 --workload iot --queries 200 --history 100 --block-rows 250 \
     --methods fullscan,range,kd,amoeba,adaptive,qdtree,paw --out $OUT/iot.json
# PAW: 8 numeric lineitem attributes, 4 queried, 50 historical + 50 δ-similar future queries
PAWCOLS=l_quantity,l_extendedprice,l_discount,l_tax,l_shipdate,l_commitdate,l_receiptdate,o_totalprice
for W in uniform skewed; do
  $SIM --data tpch --scale 0.1 --columns $PAWCOLS --dims l_quantity,l_extendedprice,l_discount,l_tax \
       --workload $W --queries 50 --block-rows 1000 --delta 0.01 --max-range 0.1 \
       --methods fullscan,kd,zorder,hilbert,qdtree,paw,paw-refined,paw-precise,paw-tuned --out $OUT/paw-$W.json
  $SIM --data tpch --scale 0.1 --columns $PAWCOLS --dims l_quantity,l_extendedprice \
       --workload $W --queries 50 --block-rows 1000 --delta 0.01 --max-range 0.1 \
       --methods fullscan,kd,zorder,hilbert,qdtree,paw,paw-refined,paw-precise,paw-tuned --out $OUT/paw-$W-2d.json
done
