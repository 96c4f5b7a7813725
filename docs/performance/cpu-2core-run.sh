# The 2-core CPU table of docs/performance.md: ours (PoCL) and PyTorch CPU on 2 threads, twice,
# in one run on this project's machine (from the repository root, after a Release build in build/).
# With BEFORE=path/to/backprop (a build before a change), that binary runs too, before ours, in
# each repeat.
for repeat in 1 2; do
  for bin in ${BEFORE:+$BEFORE} build/app/backprop; do
    echo "== repeat $repeat: PoCL, $bin"
    for net in mlp cnn cifar; do $bin bench --net $net --batch 64 --steps 20 --layers 2>&1 | grep -A20 "^  net"; done
  done
  echo "== repeat $repeat: PyTorch CPU on 2 threads"
  /usr/bin/python3 ../shared/bench/torch_reference.py --device cpu --threads 2 --nets mlp,cnn,cifar --batches 64 --max-steps 30
done
