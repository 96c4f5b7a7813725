# Sourced on the lent GPU machine: NVIDIA's OpenCL, the carried libraries, Fashion-MNIST.
B=build-gpu/bundle
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
mkdir -p /tmp/l && tar xJf $B/lib.tar.xz -C /tmp/l
export LD_LIBRARY_PATH=/tmp/l/lib
mkdir -p /usr/share/datasets/fashion-mnist && cp $B/fmnist/*.gz /usr/share/datasets/fashion-mnist/
export BACKPROP_CACHE_DIR=/tmp/bpc
