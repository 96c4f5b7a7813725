# The 2-core CPU table of docs/performance.md: ours (PoCL) and PyTorch CPU on 2 threads, twice,
# in one run on this project's machine (from the repository root, after a Release build in build/).
for repeat in 1 2; do
  echo "== repeat $repeat: PoCL"
  for net in mlp cnn cifar; do build/app/backprop bench --net $net --batch 64 --steps 20 --layers 2>&1 | grep -A20 "^  net"; done
  echo "== repeat $repeat: PyTorch CPU on 2 threads"
  /usr/bin/python3 ../shared/bench/torch_reference.py --device cpu --threads 2 --nets mlp,cnn,cifar --batches 64 --max-steps 30
done
