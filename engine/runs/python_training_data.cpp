#include "engine/runs/python_training_data.h"

#include <sstream>

#include "datasets/catalogue.h"
#include "engine/runs/python_network.h"

namespace bps::session {

namespace {

std::string py_strings(const std::vector<std::string>& values) {
    std::string text = "[";
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i > 0) text += ", ";
        text += py_string(values[i]);
    }
    return text + "]";
}

const char* format_name(datasets::DatasetFormat format) {
    switch (format) {
        case datasets::DatasetFormat::idx:
            return "idx";
        case datasets::DatasetFormat::cifar10:
            return "cifar10";
        case datasets::DatasetFormat::cifar100:
            return "cifar100";
    }
    return "idx";
}

// What the project says about its data, as the constants the functions below read.
std::string data_constants(const project::Project& project, const ModelCard& card) {
    const project::DatasetSettings& data = project.dataset;
    std::ostringstream out;
    out << "# ---- The data, as Backprop Studio reads it -------------------------------------------------\n\n";
    if (data.folder.empty()) {
        const datasets::CatalogueEntry& entry = datasets::catalogue_entry(data.name);
        std::vector<std::string> system_dirs;
        for (const std::filesystem::path& dir : entry.system_dirs) system_dirs.push_back(dir.generic_string());
        out << "# The catalogue dataset " << py_string(entry.title) << ", read from the files the studio reads.\n"
            << "DATASET = " << py_string(entry.id) << "\n"
            << "DATASET_FORMAT = \"" << format_name(entry.format) << "\"\n"
            << "DATA_FILES = " << py_strings(entry.data_files) << "\n"
            << "# Folders searched before the user's data folder (a system package's copy).\n"
            << "SYSTEM_FOLDERS = " << py_strings(system_dirs) << "\n"
            << "IMAGE_FOLDER = None\n";
    } else {
        out << "# An image folder: one subfolder of PNG or JPEG files per class.\n"
            << "DATASET = None\nDATASET_FORMAT = None\nDATA_FILES = []\nSYSTEM_FOLDERS = []\n"
            << "IMAGE_FOLDER = " << py_string(data.folder) << "\n";
    }
    out << "HEIGHT, WIDTH, CHANNELS = " << card.shape.height << ", " << card.shape.width << ", " << card.shape.channels
        << "\n"
        << "CLASS_NAMES = " << py_strings(card.class_names) << "\n"
        << "# This share of the training images is held out for validation, the same images as in the studio.\n"
        << "VALIDATION_FRACTION = " << data.validation_fraction << "\n"
        << "# Per-channel mean and standard deviation of the training images, subtracted and divided.\n"
        << "NORMALIZE = " << (data.normalize ? "True" : "False") << "\n"
        << "SHUFFLE = " << (data.shuffle ? "True" : "False") << "\n"
        << "# Augmentation: shift by up to CROP_PADDING pixels filling with zeros, mirror left-right.\n"
        << "RANDOM_CROP = " << (data.augmentation.random_crop ? "True" : "False") << "\n"
        << "CROP_PADDING = " << data.augmentation.crop_padding << "\n"
        << "HORIZONTAL_FLIP = " << (data.augmentation.horizontal_flip ? "True" : "False") << "\n\n\n";
    return out.str();
}

// The functions, the same for every project.
const char* const data_functions = R"PY(def default_data_folder():
    """Where Backprop Studio finds the dataset: a system folder holding every file, else the user's
    data folder (BACKPROP_DATA_DIR, or the platform's per-user data folder + backprop-studio/datasets)."""
    if IMAGE_FOLDER is not None:
        return Path(IMAGE_FOLDER)
    for folder in SYSTEM_FOLDERS:
        if all((Path(folder) / name).is_file() for name in DATA_FILES):
            return Path(folder)
    root = os.environ.get("BACKPROP_DATA_DIR")
    if not root:
        if sys.platform == "win32":
            base = Path(os.environ.get("LOCALAPPDATA", "."))
        elif sys.platform == "darwin":
            base = Path.home() / "Library" / "Application Support"
        else:
            xdg = os.environ.get("XDG_DATA_HOME", "")
            base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".local" / "share"
        root = base / "backprop-studio" / "datasets"
    return Path(root) / DATASET


def read_bytes(path):
    """A file's bytes, gunzipped as often as it is gzipped (Debian gzips the IDX files again)."""
    if not path.is_file():
        sys.exit("%s is missing: download the dataset with 'backprop datasets download %s' or give --data"
                 % (path, DATASET))
    data = path.read_bytes()
    while data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data


def read_idx(folder, images_name, labels_name):
    images = np.frombuffer(read_bytes(folder / images_name), dtype=np.uint8, offset=16)
    labels = np.frombuffer(read_bytes(folder / labels_name), dtype=np.uint8, offset=8)
    return images.reshape(-1, 1, HEIGHT, WIDTH), labels


def read_cifar(folder, names, label_bytes):
    """CIFAR's binary batches: per image its label byte(s) (CIFAR-100: coarse, then fine), then
    3 x 32 x 32 bytes, channels first."""
    records = np.concatenate([np.frombuffer(read_bytes(folder / name), dtype=np.uint8) for name in names])
    records = records.reshape(-1, label_bytes + 3 * HEIGHT * WIDTH)
    return records[:, label_bytes:].reshape(-1, 3, HEIGHT, WIDTH), records[:, label_bytes - 1]


def read_image_folder(folder):
    """One subfolder per class in name order, its .png/.jpg/.jpeg files in name order, resized to
    HEIGHT x WIDTH (bilinear here; the studio's resizing differs slightly for images of another
    size) as grayscale or RGB. Unreadable files are skipped."""
    from PIL import Image

    images, labels = [], []
    classes = sorted(entry.name for entry in folder.iterdir() if entry.is_dir())
    for label, name in enumerate(classes):
        for path in sorted((folder / name).iterdir()):
            if path.suffix.lower() not in (".png", ".jpg", ".jpeg"):
                continue
            try:
                image = Image.open(path).convert("L" if CHANNELS == 1 else "RGB")
            except OSError:
                print("skipped %s: it cannot be read" % path, file=sys.stderr)
                continue
            if image.size != (WIDTH, HEIGHT):
                image = image.resize((WIDTH, HEIGHT), Image.BILINEAR)
            pixels = np.asarray(image, dtype=np.uint8).reshape(HEIGHT, WIDTH, CHANNELS)
            images.append(pixels.transpose(2, 0, 1))
            labels.append(label)
    return np.stack(images), np.array(labels, dtype=np.uint8)


def load_data(folder):
    """(train_images, train_labels, test_images, test_labels): float32 N x C x H x W in [0, 1] and
    int64 labels. An image folder has no test split: its test arrays are None."""
    folder = Path(folder)
    test = (None, None)
    if IMAGE_FOLDER is not None:
        train = read_image_folder(folder)
    elif DATASET_FORMAT == "idx":
        train = read_idx(folder, DATA_FILES[0], DATA_FILES[1])
        test = read_idx(folder, DATA_FILES[2], DATA_FILES[3])
    elif DATASET_FORMAT == "cifar10":
        train = read_cifar(folder, DATA_FILES[:5], 1)
        test = read_cifar(folder, DATA_FILES[5:6], 1)
    else:
        train = read_cifar(folder, DATA_FILES[:1], 2)
        test = read_cifar(folder, DATA_FILES[1:2], 2)

    def scaled(images):
        return None if images is None else images.astype(np.float32) / np.float32(255)

    def labelled(labels):
        return None if labels is None else labels.astype(np.int64)

    return scaled(train[0]), labelled(train[1]), scaled(test[0]), labelled(test[1])


class Mt19937_64:
    """The 64-bit Mersenne Twister as C++'s std::mt19937_64, whose sequence the standard fixes: the
    studio draws its validation split from it."""

    MASK = (1 << 64) - 1

    def __init__(self, seed):
        self.state = [seed & self.MASK]
        for i in range(1, 312):
            previous = self.state[-1]
            self.state.append((6364136223846793005 * (previous ^ (previous >> 62)) + i) & self.MASK)
        self.index = 312

    def _twist(self):
        state = self.state
        for i in range(312):
            bits = (state[i] & 0xFFFFFFFF80000000) | (state[(i + 1) % 312] & 0x7FFFFFFF)
            state[i] = state[(i + 156) % 312] ^ (bits >> 1) ^ (0xB5026F5AA96619E9 if bits & 1 else 0)
        self.index = 0

    def __call__(self):
        if self.index >= 312:
            self._twist()
        value = self.state[self.index]
        self.index += 1
        value ^= (value >> 29) & 0x5555555555555555
        value ^= (value << 17) & 0x71D67FFFEDA60000
        value ^= (value << 37) & 0xFFF7EEE000000000
        value ^= value >> 43
        return value


def draw_below(generator, bound):
    """A uniform integer in [0, bound) without modulo bias, as the studio draws it."""
    threshold = (2**64 - bound) % bound
    while True:
        value = generator()
        if value >= threshold:
            return value % bound


def split_train_validation(count, fraction, seed):
    """(train, validation): sorted sample numbers, the very split the studio makes for this seed."""
    validation_count = min(count, int(math.floor(count * fraction + 0.5)))
    if validation_count == 0:
        return list(range(count)), []
    shuffled = list(range(count))
    generator = Mt19937_64(seed)
    for i in range(count, 1, -1):  # Fisher-Yates
        j = draw_below(generator, i)
        shuffled[i - 1], shuffled[j] = shuffled[j], shuffled[i - 1]
    return sorted(shuffled[validation_count:]), sorted(shuffled[:validation_count])


def compute_normalization(images):
    """Per-channel mean and population standard deviation over `images` in float64, as the studio
    computes them over the training split (its validation images included); a constant channel
    keeps a standard deviation of 1."""
    mean, stddev = [], []
    for c in range(images.shape[1]):
        channel = images[:, c]
        m = float(channel.mean(dtype=np.float64))
        squares = sum(float(np.square(part - m, dtype=np.float64).sum()) for part in np.array_split(channel, 16))
        constant = channel.min() == channel.max()
        mean.append(m)
        stddev.append(1.0 if constant else math.sqrt(squares / channel.size))
    return np.float32(mean).tolist(), np.float32(stddev).tolist()


def normalize(images, mean, stddev):
    """(x - mean) / stddev per channel, in place."""
    for c in range(images.shape[1]):
        images[:, c] -= np.float32(mean[c])
        images[:, c] /= np.float32(stddev[c])


def augment(images, rng):
    """The studio's augmentation on a batch (N x C x H x W, a copy): each image shifted by up to
    CROP_PADDING pixels with zeros filling in (a random crop of the zero-padded image), and
    mirrored left-right with probability 1/2. `rng` is a numpy Generator."""
    if not (RANDOM_CROP or HORIZONTAL_FLIP):
        return images
    images = images.copy()
    p = CROP_PADDING
    for image in images:
        if RANDOM_CROP and p > 0:
            dy, dx = rng.integers(0, 2 * p + 1, size=2)
            padded = np.pad(image, ((0, 0), (p, p), (p, p)))
            image[...] = padded[:, dy : dy + HEIGHT, dx : dx + WIDTH]
        if HORIZONTAL_FLIP and rng.integers(2) == 1:
            image[...] = image[:, :, ::-1]
    return images


)PY";

}  // namespace

std::string python_training_data(const project::Project& project, const ModelCard& card) {
    return data_constants(project, card) + data_functions;
}

}  // namespace bps::session
