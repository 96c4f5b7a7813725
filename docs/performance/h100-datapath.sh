# The data-path call behind docs/performance.md (bench and train alternately, three times).
. docs/performance/h100-setup.sh
$B/backprop bench --net mlp --batch 64 --device H100 --steps 300 > /dev/null 2>&1
for r in 1 2 3; do for nb in "mlp 64" "mlp 256" "cnn 64" "cnn 256"; do set -- $nb
  echo "== $r bench $1 $2: $($B/backprop bench --net $1 --batch $2 --device H100 --steps 300 2>&1 | grep -E 'whole step')"
  echo "== $r train $1 $2: $($B/backprop train $1 --epochs 3 --batch $2 --device H100 2>&1 | grep -E '^epoch [0-9]/[0-9]: loss' | sed 's/.*| //' | tr '\n' ' ')"
done; done
