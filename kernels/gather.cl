// A batch taken from a training set that stays on the device: images[i] = set_images[indices[i]]
// and labels[i] = set_labels[indices[i]], one work-item per image value over (value, sample), so
// neighbouring work-items copy neighbouring values.
__kernel void gather_samples(const int count, const int per_sample,
                             __global const float* set_images, const int set_images_off,
                             __global const int* set_labels, const int set_labels_off,
                             __global const int* indices, const int indices_off,
                             __global float* images, const int images_off,
                             __global int* labels, const int labels_off) {
    const int j = get_global_id(0), i = get_global_id(1);
    if (j >= per_sample || i >= count) return;
    const int index = indices[indices_off + i];
    images[images_off + i * per_sample + j] = set_images[set_images_off + index * per_sample + j];
    if (j == 0) labels[labels_off + i] = set_labels[set_labels_off + index];
}
