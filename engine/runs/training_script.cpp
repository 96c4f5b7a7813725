#include "engine/runs/training_script.h"

#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/project/project_format.h"
#include "engine/runs/python_network.h"
#include "engine/runs/python_training_data.h"
#include "engine/train/initializer.h"

namespace bps::session {

namespace {

using model::LayerAnalysis;
using model::LayerType;

// A Python '''string''' holding `text` as it is: backslashes and quotes escaped, lines kept.
std::string py_long_string(const std::string& text) {
    std::string escaped;
    for (const char c : text) {
        if (c == '\\' || c == '\'') escaped += '\\';
        escaped += c;
    }
    return cat({"'''\\\n", escaped, "'''"});
}

std::string project_name(const project::Project& project, const ModelCard& card) {
    return project.name.empty() ? card.project : project.name;
}

// The project's training settings, the weights to start from and what the saved file carries.
std::string training_constants(const project::Project& project, const ModelCard& card,
                               const std::string& weights_file) {
    const project::TrainingSettings& training = project.training;
    const train::OptimizerSettings& optimizer = training.optimizer;
    const train::Schedule& schedule = training.schedule;
    std::ostringstream out;
    out << "# ---- The project's training settings (the command line overrides some) ----------------------\n\n"
        << "EPOCHS = " << training.epochs << "\n"
        << "BATCH_SIZE = " << training.batch_size << "  # images per optimiser step, over all processes\n"
        << "SEED = " << training.seed << "\n"
        << "LOSS = \""
        << (project.network.loss == model::LossKind::softmax_cross_entropy ? "softmax_cross_entropy"
                                                                           : "mean_squared_error")
        << "\"\n"
        << "OPTIMIZER = \"" << project::format::optimizer(optimizer.kind) << "\"\n"
        << "LEARNING_RATE = " << py_float(optimizer.learning_rate) << "  # the schedule's base rate\n"
        << "MOMENTUM, NESTEROV = " << py_float(optimizer.momentum) << ", " << (optimizer.nesterov ? "True" : "False")
        << "  # SGD\n"
        << "# SGD and Adam: L2, added to the gradient; AdamW: decoupled, the weights shrink by lr * decay a step.\n"
        << "WEIGHT_DECAY = " << py_float(optimizer.weight_decay) << "\n"
        << "BETA1, BETA2, EPSILON = " << py_float(optimizer.beta1) << ", " << py_float(optimizer.beta2) << ", "
        << py_float(optimizer.epsilon) << "  # Adam, AdamW\n"
        << "# The learning rate over (fractional) epochs, set before every step as the studio sets it:\n"
        << "# constant; step: times GAMMA every STEP_SIZE whole epochs; cosine: from the base rate at epoch 0\n"
        << "# down to MIN_RATE at TOTAL_EPOCHS.\n"
        << "SCHEDULE = \"" << project::format::schedule(schedule.kind) << "\"\n"
        << "STEP_SIZE, GAMMA = " << schedule.step_size << ", " << py_float(schedule.gamma) << "\n"
        << "TOTAL_EPOCHS, MIN_RATE = " << schedule.total_epochs << ", " << py_float(schedule.min_rate) << "\n\n"
        << "# The weights training starts from (Keras's layout, as Backprop Studio saves them), beside this\n"
        << "# script unless the path is absolute; None: the project's initialisers.\n"
        << "WEIGHTS = "
        << (weights_file.empty() ? std::string("None")
                                 : cat({"Path(__file__).resolve().parent / ", py_string(weights_file)}))
        << "\n\n"
        << "# What the saved weights file carries besides the weights, as the studio writes it: the model card\n"
        << "# (its normalisation is replaced by the one computed here) and the project file.\n"
        << "MODEL_CARD = "
        << nlohmann::json::parse(
               model_card_json(ModelCard{project_name(project, card), card.shape, card.class_names, {}}))
               .dump(-1, ' ', true, nlohmann::json::error_handler_t::replace)
        << "\n"
        << "# The project file's text is PROJECT_JSON, at the end of this script.\n\n"
        << "# Every layer in order with the names of its weights, as Keras lists them.\n"
        << "LAYER_WEIGHTS = [\n";
    return out.str();
}

// The project file, long, so at the end of the script, before main() runs.
std::string project_text(const project::Project& project) {
    return cat({"# The project file, as the saved weights file carries it.\n", "PROJECT_JSON = ",
                py_long_string(project::project_to_json(project)), "\n\n\nif __name__ == \"__main__\":\n    main()\n"});
}

std::vector<std::string> keras_weight_names(LayerType type) {
    switch (type) {
        case LayerType::dense:
        case LayerType::conv2d:
            return {"kernel", "bias"};
        case LayerType::batch_norm:
            return {"gamma", "beta", "moving_mean", "moving_variance"};
        default:
            return {};
    }
}

std::string layer_weights(const Network& network) {
    std::ostringstream out;
    for (const LayerAnalysis& layer : network.analysis.layers) {
        out << "    (" << py_string(layer.spec.name) << ", [";
        const std::vector<std::string> names = keras_weight_names(layer.spec.type);
        for (std::size_t i = 0; i < names.size(); ++i) out << (i > 0 ? ", " : "") << "\"" << names[i] << "\"";
        out << "]),\n";
    }
    out << "]\n\n\n";
    return out.str();
}

// Writing the studio's weights file with h5py: the same groups, attributes and string types as
// engine/io/weights_file.cpp, so `backprop evaluate`, `predict`, `train --weights` and the studio read it.
const char* const save_function = R"PY(def check_can_save(path):
    """Refuses, before any training, an --out that could not be written at the end."""
    folder = Path(path).resolve().parent
    if Path(path).is_dir() or not folder.is_dir() or not os.access(folder, os.W_OK):
        sys.exit("%s: the weights could not be saved there (a folder that is missing or cannot be written, "
                 "or a folder's name); give another --out" % path)


def save_weights_file(path, arrays, normalization):
    """Saves `arrays` ({layer name: {weight name: float32 array in Keras's axis order}}) as Backprop
    Studio saves trained weights: Keras's HDF5 layout with the model card and the project attached.
    Written to a temporary file beside `path`, then renamed over it: an interrupted save never
    damages an earlier file."""
    text = h5py.string_dtype("utf-8")
    card = dict(MODEL_CARD)
    card["normalization"] = {"mean": normalization[0], "stddev": normalization[1]}
    path = Path(path).resolve()
    handle, temporary = tempfile.mkstemp(prefix=path.name + ".", suffix=".part", dir=path.parent)
    os.close(handle)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(temporary, 0o666 & ~umask)  # as an ordinary new file, not mkstemp's owner-only
    try:
        with h5py.File(temporary, "w") as file:
            file.attrs.create("layer_names", [name for name, _ in LAYER_WEIGHTS], dtype=text)
            file.attrs.create("backend", "tensorflow", dtype=text)
            file.attrs.create("keras_version", "2.15.0", dtype=text)
            file.attrs.create("format", "backprop-studio-weights", dtype=text)
            file.attrs.create("format_version", 2, dtype=np.int32)
            file.attrs.create("model_card", json.dumps(card), dtype=text)
            file.attrs.create("project", PROJECT_JSON, dtype=text)
            for name, weight_names in LAYER_WEIGHTS:
                group = file.create_group(name)
                group.attrs.create("weight_names", ["%s/%s:0" % (name, weight) for weight in weight_names], dtype=text)
                if weight_names:
                    inner = group.create_group(name)
                    for weight in weight_names:
                        inner.create_dataset(weight + ":0", data=np.asarray(arrays[name][weight], dtype=np.float32))
        os.replace(temporary, path)
    except BaseException:
        os.remove(temporary)
        raise


)PY";

std::string header(const project::Project& project, const ModelCard& card, const std::string& framework,
                   const std::string& running, const std::string& install) {
    std::ostringstream out;
    out << "#!/usr/bin/env python3\n"
        << "\"\"\"Trains the network of the Backprop Studio project " << py_string(project_name(project, card))
        << " with " << framework << ".\n\n"
        << "The same layers under the same names and initialisers, the same data (the same validation split,\n"
        << "normalisation and augmentation), the same optimiser, learning-rate schedule, loss, epochs, batch\n"
        << "size and seed as the studio. The trained weights are saved as the studio saves them (Keras's HDF5\n"
        << "layout with the model card and the project inside): open them in the studio, or use\n"
        << "`backprop evaluate OUT.h5` and `backprop predict OUT.h5 IMAGE.png`; `backprop export OUT.h5\n"
        << "--pytorch-train` writes a script that goes on training from those weights.\n\n"
        << running << "\nNeeds: " << install << "\n\"\"\"\n";
    return out.str();
}

// ---- PyTorch --------------------------------------------------------------------------------------------

std::string torch_initialisation(const Network& network) {
    std::ostringstream out;
    for (std::size_t i = 0; i < network.analysis.layers.size(); ++i) {
        const LayerAnalysis& layer = network.analysis.layers[i];
        const model::LayerSpec& spec = layer.spec;
        const std::string& name = network.names[i];
        if (spec.type == LayerType::dense || spec.type == LayerType::conv2d) {
            const Shape in = network.analysis.layers[static_cast<std::size_t>(layer.inputs[0])].output;
            const int receptive = spec.type == LayerType::conv2d ? spec.conv.kernel_h * spec.conv.kernel_w : 1;
            const int fan_in = static_cast<int>(spec.type == LayerType::conv2d ? in.c : in.per_sample()) * receptive;
            out << "        initialise(self." << name << ".weight, \"" << train::initializer_name(spec.initializer)
                << "\", fan_in=" << fan_in << ", fan_out=" << spec.units * receptive << ")\n"
                << "        nn.init.zeros_(self." << name << ".bias)\n";
        } else if (spec.type == LayerType::batch_norm) {
            out << "        self." << name << ".reset_parameters()  # gamma 1, beta 0, mean 0, variance 1\n";
        }
    }
    if (out.str().empty()) out << "        pass  # no layer has weights\n";
    return out.str();
}

std::string torch_arrays(const Network& network) {
    std::ostringstream out;
    for (std::size_t i = 0; i < network.analysis.layers.size(); ++i) {
        const model::LayerSpec& spec = network.analysis.layers[i].spec;
        const std::string m = cat({"model.", network.names[i]});
        const std::string key = py_string(spec.name);
        switch (spec.type) {
            case LayerType::dense:
                out << "        " << key << ": {\"kernel\": " << m << ".weight.T, \"bias\": " << m << ".bias},\n";
                break;
            case LayerType::conv2d:
                out << "        " << key << ": {\"kernel\": " << m << ".weight.permute(2, 3, 1, 0), \"bias\": " << m
                    << ".bias},\n";
                break;
            case LayerType::batch_norm:
                out << "        " << key << ": {\"gamma\": " << m << ".weight, \"beta\": " << m
                    << ".bias, \"moving_mean\": " << m << ".running_mean, \"moving_variance\": " << m
                    << ".running_var},\n";
                break;
            default:
                break;
        }
    }
    return out.str();
}

// BatchNorm's momentum: Keras and the studio keep m * running + (1 - m) * batch; PyTorch's
// momentum is the batch's share.
std::string torch_batch_norm_momentum(const Network& network) {
    std::ostringstream out;
    for (std::size_t i = 0; i < network.analysis.layers.size(); ++i) {
        const model::LayerSpec& spec = network.analysis.layers[i].spec;
        if (spec.type == LayerType::batch_norm)
            out << "        self." << network.names[i] << ".momentum = 1 - " << py_float(spec.momentum)
                << "  # Keras's momentum " << py_float(spec.momentum) << " is PyTorch's 1 - " << py_float(spec.momentum)
                << "\n";
    }
    return out.str();
}

const char* const torch_running =
    R"PY(How to run it (--batch-size is the GLOBAL batch, the project's: each of N processes takes
batch-size / N images a step, so a step sees as many images as in the studio whatever N is):
    One GPU, or the CPU when there is none:
        python train.py
    N GPUs of one machine (DistributedDataParallel, one process a GPU):
        torchrun --nproc_per_node=N train.py
    Several machines, e.g. 2 with N GPUs each: on each machine, with R its rank (0 on the first):
        torchrun --nnodes=2 --node_rank=R --master_addr=FIRST_MACHINE --master_port=29500 \
                 --nproc_per_node=N train.py
(Debian 12's torch 1.13 under Python 3.11 stops at torchrun's own options: add --redirects 2 --tee 2.)
Rank 0 logs one line per epoch and saves the weights after every epoch (--out, default beside this
script). Options: --epochs, --batch-size, --lr, --data DIR, --out FILE.h5, --max-steps N, --seed.
)PY";

const char* const torch_functions = R"PY(def initialise(weight, kind, fan_in, fan_out):
    """The studio's initialisers, defined as Keras defines them (engine/train/initializer.h)."""
    if kind in ("he_uniform", "glorot_uniform"):
        limit = math.sqrt(6 / (fan_in if kind == "he_uniform" else fan_in + fan_out))
        nn.init.uniform_(weight, -limit, limit)
    elif kind in ("he_normal", "glorot_normal"):
        # Keras's truncated normal: values beyond two standard deviations are redrawn; dividing by
        # 0.8796... gives the truncated distribution the wanted standard deviation.
        stddev = math.sqrt(2 / (fan_in if kind == "he_normal" else fan_in + fan_out)) / 0.87962566103423978
        nn.init.trunc_normal_(weight, 0.0, stddev, -2 * stddev, 2 * stddev)
    elif kind == "zeros":
        nn.init.zeros_(weight)
    else:
        nn.init.ones_(weight)


def keras_arrays(model):
    """The model's weights as {layer: {weight: array}} in Keras's axis order (channels-last kernels)."""
    with torch.no_grad():
        arrays = {
)PY";

const char* const torch_training = R"PY(def learning_rate_at(base_rate, epoch):
    """The rate for a (fractional) epoch: batch k of an epoch of n batches is at epoch + k / n."""
    if SCHEDULE == "step":
        return base_rate * GAMMA ** math.floor(max(0.0, epoch) / STEP_SIZE)
    if SCHEDULE == "cosine":
        progress = min(max(epoch / TOTAL_EPOCHS, 0.0), 1.0)
        return MIN_RATE + (base_rate - MIN_RATE) * 0.5 * (1 + math.cos(math.pi * progress))
    return base_rate


def make_optimizer(model, rate):
    """The studio's update rules are PyTorch's: SGD's velocity v = momentum * v + g (Nesterov:
    g + momentum * v) with L2 added to g; Adam with L2 added to g; AdamW shrinking the weights by
    lr * decay before the Adam step; epsilon added to the bias-corrected sqrt(v), as here."""
    if OPTIMIZER == "sgd":
        return torch.optim.SGD(model.parameters(), lr=rate, momentum=MOMENTUM, nesterov=NESTEROV,
                               weight_decay=WEIGHT_DECAY)
    kind = torch.optim.Adam if OPTIMIZER == "adam" else torch.optim.AdamW
    return kind(model.parameters(), lr=rate, betas=(BETA1, BETA2), eps=EPSILON, weight_decay=WEIGHT_DECAY)


def loss_of(outputs, labels):
    if LOSS == "softmax_cross_entropy":
        return F.cross_entropy(outputs, labels)
    # The mean over the batch and the classes of the squared difference from the one-hot labels.
    return F.mse_loss(outputs, F.one_hot(labels, len(CLASS_NAMES)).to(outputs.dtype))


def train(model, loader, optimizer, epoch, arguments, device, rng):
    """One epoch (or --max-steps steps of it); returns the summed loss, right answers and images."""
    model.train()
    totals = torch.zeros(3, dtype=torch.float64)
    for step, (images, labels) in enumerate(loader):
        if arguments.max_steps is not None and step >= arguments.max_steps:
            break
        for group in optimizer.param_groups:
            group["lr"] = learning_rate_at(arguments.lr, epoch + step / len(loader))
        if RANDOM_CROP or HORIZONTAL_FLIP:
            images = torch.from_numpy(augment(images.numpy(), rng))
        images, labels = images.to(device), labels.to(device)
        outputs = model(images)
        loss = loss_of(outputs, labels)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        totals += torch.tensor([loss.item() * len(labels), (outputs.argmax(1) == labels).sum().item(), len(labels)],
                               dtype=torch.float64)
    return totals


def validate(model, images, labels, batch_size, device):
    """(loss, accuracy) on held-out images, BatchNorm on its running statistics, nothing dropped."""
    model.eval()
    loss, right = 0.0, 0
    with torch.no_grad():
        for first in range(0, len(labels), batch_size):
            x = torch.from_numpy(images[first : first + batch_size]).to(device)
            y = torch.from_numpy(labels[first : first + batch_size]).to(device)
            outputs = model(x)
            loss += loss_of(outputs, y).item() * len(y)
            right += (outputs.argmax(1) == y).sum().item()
    return loss / len(labels), right / len(labels)


def main():
    parser = argparse.ArgumentParser(description="Train the project's network (see the top of this file).")
    parser.add_argument("--epochs", type=int, default=EPOCHS)
    parser.add_argument("--batch-size", type=int, default=BATCH_SIZE,
                        help="the global batch: images per optimiser step over all processes (default %(default)s)")
    parser.add_argument("--lr", type=float, default=LEARNING_RATE, help="the schedule's base learning rate")
    parser.add_argument("--data", type=Path, default=default_data_folder(), help="default: %(default)s")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().with_suffix(".h5"),
                        help="the trained weights (HDF5, Keras's layout; default: %(default)s)")
    parser.add_argument("--max-steps", type=int, default=None, help="stop each epoch after this many steps")
    parser.add_argument("--seed", type=int, default=SEED)
    arguments = parser.parse_args()
    if WEIGHTS is not None and arguments.out.resolve() == WEIGHTS.resolve():
        sys.exit("%s: the weights to start from would be overwritten; give another --out" % arguments.out)
    check_can_save(arguments.out)

    # torchrun sets RANK, WORLD_SIZE and LOCAL_RANK; `python train.py` runs one process.
    distributed = "RANK" in os.environ and "WORLD_SIZE" in os.environ
    rank = int(os.environ.get("RANK", 0))
    world = int(os.environ.get("WORLD_SIZE", 1))
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    if torch.cuda.is_available():
        device = torch.device("cuda", local_rank)
        torch.cuda.set_device(device)
    else:
        device = torch.device("cpu")
        if "OMP_NUM_THREADS" not in os.environ:  # (torchrun sets it to 1 for several processes)
            # Processes on one machine share its cores.
            torch.set_num_threads(max(1, (os.cpu_count() or 1) // int(os.environ.get("LOCAL_WORLD_SIZE", 1))))
    if distributed:
        dist.init_process_group("nccl" if device.type == "cuda" else "gloo")
    log = print if rank == 0 else (lambda *_: None)

    torch.manual_seed(arguments.seed)  # every process builds the same initial weights
    train_images, train_labels, test_images, test_labels = load_data(arguments.data)
    mean, stddev = compute_normalization(train_images) if NORMALIZE else ([], [])
    if NORMALIZE:
        normalize(train_images, mean, stddev)
        if test_images is not None:
            normalize(test_images, mean, stddev)
    train_indices, validation_indices = split_train_validation(len(train_labels), VALIDATION_FRACTION, arguments.seed)
    validation_images, validation_labels = train_images[validation_indices], train_labels[validation_indices]
    training = TensorDataset(torch.from_numpy(train_images[train_indices]), torch.from_numpy(train_labels[train_indices]))
    del train_images

    per_process = max(1, arguments.batch_size // world)
    if distributed:
        sampler = DistributedSampler(training, num_replicas=world, rank=rank, shuffle=SHUFFLE, seed=arguments.seed)
    elif SHUFFLE:
        sampler = RandomSampler(training, generator=torch.Generator().manual_seed(arguments.seed))
    else:
        sampler = SequentialSampler(training)
    loader = DataLoader(training, batch_size=per_process, sampler=sampler)
    log("%d process%s on %s, batch size %d per process, %d in all (global); %d training images, %d validation"
        % (world, "" if world == 1 else "es", device.type, per_process, per_process * world, len(training),
           len(validation_labels)))

    model = Network().to(device)
    if WEIGHTS is not None:
        load_weights(model, WEIGHTS)
    trained = model
    if distributed:
        model = DistributedDataParallel(model, device_ids=[local_rank] if device.type == "cuda" else None)
    optimizer = make_optimizer(model, arguments.lr)
    rng = np.random.default_rng(arguments.seed + rank)  # augmentation draws

    for epoch in range(arguments.epochs):
        if distributed:
            sampler.set_epoch(epoch)  # a new order every epoch, the same on every process
        totals = train(model, loader, optimizer, epoch, arguments, device, rng)
        if distributed:
            dist.all_reduce(totals)  # the figures of every process
        loss, right, count = totals.tolist()
        if rank == 0:
            line = "epoch %d/%d: loss %.4f, accuracy %.4f" % (epoch + 1, arguments.epochs, loss / max(count, 1),
                                                              right / max(count, 1))
            if len(validation_labels) > 0:
                line += ", validation accuracy %.4f" % validate(trained, validation_images, validation_labels,
                                                                per_process, device)[1]
            log(line, flush=True)
            save_weights_file(arguments.out, keras_arrays(trained), (mean, stddev))
        if distributed:
            dist.barrier()  # the others wait while rank 0 validates and saves
    if rank == 0:
        if test_images is not None:
            loss, accuracy = validate(trained, test_images, test_labels, per_process, device)
            log("test accuracy %.4f, test loss %.4f" % (accuracy, loss))
        log("wrote %s" % arguments.out)
    if distributed:
        dist.destroy_process_group()

)PY";

}  // namespace

std::string pytorch_training_script(const project::Project& project, const ModelCard& card,
                                    const std::string& weights_file) {
    const Network network = network_of(project, card);
    const TorchLayers torch = torch_layers(network);
    std::ostringstream out;
    out << header(project, card, "PyTorch", torch_running,
                  "pip install torch h5py numpy pillow (pillow: image folders)")
        << "import argparse\nimport gzip\nimport json\nimport math\nimport os\nimport sys\nimport tempfile\n"
        << "from pathlib import Path\n\n"
        << "import h5py\nimport numpy as np\nimport torch\nimport torch.distributed as dist\nimport torch.nn as nn\n"
        << "import torch.nn.functional as F\nfrom torch.nn.parallel import DistributedDataParallel\n"
        << "from torch.utils.data import DataLoader, DistributedSampler, RandomSampler, SequentialSampler, "
           "TensorDataset\n\n"
        << training_constants(project, card, weights_file) << layer_weights(network)
        << python_training_data(project, card)
        << "# ---- The network ----------------------------------------------------------------------------\n\n"
        << "class Network(nn.Module):\n"
        << "    \"\"\"The project's network. Tensors are (batch, channels, height, width) until flattened, and\n"
        << "    flattened channels-last as Keras flattens, so the weights file needs only transposes.\"\"\"\n\n"
        << "    def __init__(self):\n        super().__init__()\n"
        << torch.modules << torch_batch_norm_momentum(network) << "        self.reset_parameters()\n\n"
        << "    def reset_parameters(self):\n"
        << "        \"\"\"The project's initialisers; biases start at zero.\"\"\"\n"
        << torch_initialisation(network) << "\n"
        << "    def forward(self, " << network.names.front() << "):\n"
        << torch.forward << "        return " << network.names.back() << "  # "
        << (project.network.loss == model::LossKind::softmax_cross_entropy ? "logits: the loss applies the softmax"
                                                                           : "the outputs")
        << "\n\n\n"
        << "def load_weights(model, path):\n"
        << "    \"\"\"Copies the weights of a Keras-layout HDF5 file (layer/layer/kernel:0) into the model.\"\"\"\n"
        << "    with h5py.File(path, \"r\") as file, torch.no_grad():\n\n"
        << "        def weight(layer, name):\n"
        << "            return torch.from_numpy(np.asarray(file[layer][layer][name + \":0\"], dtype=np.float32))\n\n"
        << (torch.loading.empty() ? std::string("        pass  # no layer has weights\n") : torch.loading) << "\n\n"
        << torch_functions << torch_arrays(network) << "        }\n"
        << "    return {layer: {name: array.detach().cpu().numpy() for name, array in weights.items()}\n"
        << "            for layer, weights in arrays.items()}\n\n\n"
        << save_function << torch_training << project_text(project);
    return out.str();
}

// ---- Keras ----------------------------------------------------------------------------------------------

namespace {

const char* const keras_running =
    R"PY(How to run it (one machine; MirroredStrategy uses every GPU it sees, else the CPU):
    python train_keras.py [--epochs N] [--batch-size B] [--lr X] [--data DIR] [--out FILE.h5]
--batch-size is the GLOBAL batch, the project's: MirroredStrategy splits it over the GPUs.
For several machines, PyTorch's script (backprop export --pytorch-train) runs under torchrun.
)PY";

const char* const keras_training = R"PY(class StudioSchedule(keras.optimizers.schedules.LearningRateSchedule):
    """The studio's schedule, set every step: step k of an epoch of n steps is at epoch + k / n."""

    def __init__(self, base_rate, steps_per_epoch):
        self.base_rate, self.steps_per_epoch = base_rate, steps_per_epoch

    def __call__(self, step):
        epoch = tf.cast(step, tf.float32) / self.steps_per_epoch
        if SCHEDULE == "step":
            return self.base_rate * GAMMA ** tf.floor(tf.maximum(epoch, 0.0) / STEP_SIZE)
        if SCHEDULE == "cosine":
            progress = tf.clip_by_value(epoch / TOTAL_EPOCHS, 0.0, 1.0)
            return MIN_RATE + (self.base_rate - MIN_RATE) * 0.5 * (1 + tf.cos(math.pi * progress))
        return tf.constant(self.base_rate, tf.float32)


def make_optimizer(rate):
    """SGD's update is the studio's (Keras keeps the velocity scaled by the rate: the same steps for a
    constant rate). Keras adds Adam's epsilon to sqrt(v) before the bias correction, the studio
    after it: with epsilon 1e-7 the steps barely differ. The L2 decay of SGD and Adam is a loss
    term (see l2_penalty); AdamW's decay is Keras's own, decoupled as in the studio."""
    if OPTIMIZER == "sgd":
        return keras.optimizers.SGD(learning_rate=rate, momentum=MOMENTUM, nesterov=NESTEROV)
    if OPTIMIZER == "adam":
        return keras.optimizers.Adam(learning_rate=rate, beta_1=BETA1, beta_2=BETA2, epsilon=EPSILON)
    return keras.optimizers.AdamW(learning_rate=rate, weight_decay=WEIGHT_DECAY, beta_1=BETA1, beta_2=BETA2,
                                  epsilon=EPSILON)


def l2_penalty(model):
    """WEIGHT_DECAY / 2 * the sum of every squared weight: its gradient adds WEIGHT_DECAY * w, the
    studio's L2 for SGD and Adam."""
    if OPTIMIZER != "adamw" and WEIGHT_DECAY > 0:
        for weight in model.trainable_weights:
            model.add_loss(lambda weight=weight: 0.5 * WEIGHT_DECAY * tf.reduce_sum(tf.square(weight)))


def augment_one(image, label):
    """The studio's augmentation (random shift with zeros, left-right mirror) in TensorFlow."""
    if RANDOM_CROP and CROP_PADDING > 0:
        padded = tf.pad(image, [[CROP_PADDING, CROP_PADDING], [CROP_PADDING, CROP_PADDING], [0, 0]])
        image = tf.image.random_crop(padded, (HEIGHT, WIDTH, CHANNELS))
    if HORIZONTAL_FLIP:
        image = tf.image.random_flip_left_right(image)
    return image, label


def save_keras_weights(model, path, normalization):
    arrays = {name: dict(zip(weights, model.get_layer(name).get_weights())) for name, weights in LAYER_WEIGHTS
              if weights}
    save_weights_file(path, arrays, normalization)


def main():
    parser = argparse.ArgumentParser(description="Train the project's network (see the top of this file).")
    parser.add_argument("--epochs", type=int, default=EPOCHS)
    parser.add_argument("--batch-size", type=int, default=BATCH_SIZE,
                        help="the global batch, split over the GPUs (default %(default)s)")
    parser.add_argument("--lr", type=float, default=LEARNING_RATE, help="the schedule's base learning rate")
    parser.add_argument("--data", type=Path, default=default_data_folder(), help="default: %(default)s")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().with_suffix(".h5"),
                        help="the trained weights (HDF5, Keras's layout; default: %(default)s)")
    parser.add_argument("--seed", type=int, default=SEED)
    arguments = parser.parse_args()
    if WEIGHTS is not None and arguments.out.resolve() == WEIGHTS.resolve():
        sys.exit("%s: the weights to start from would be overwritten; give another --out" % arguments.out)
    check_can_save(arguments.out)
    keras.utils.set_random_seed(arguments.seed)

    train_images, train_labels, test_images, test_labels = load_data(arguments.data)
    mean, stddev = compute_normalization(train_images) if NORMALIZE else ([], [])
    if NORMALIZE:
        normalize(train_images, mean, stddev)
        if test_images is not None:
            normalize(test_images, mean, stddev)
    train_indices, validation_indices = split_train_validation(len(train_labels), VALIDATION_FRACTION, arguments.seed)

    def channels_last(images):
        return images.transpose(0, 2, 3, 1)

    training = tf.data.Dataset.from_tensor_slices(
        (channels_last(train_images[train_indices]), train_labels[train_indices]))
    if SHUFFLE:
        training = training.shuffle(len(train_indices), seed=arguments.seed, reshuffle_each_iteration=True)
    if RANDOM_CROP or HORIZONTAL_FLIP:
        training = training.map(augment_one)
    training = training.batch(arguments.batch_size).prefetch(tf.data.AUTOTUNE)
    validation = None
    if validation_indices:
        validation = (channels_last(train_images[validation_indices]), train_labels[validation_indices])
    steps_per_epoch = math.ceil(len(train_indices) / arguments.batch_size)

    strategy = tf.distribute.MirroredStrategy()
    print("%d replicas, batch size %d in all (global), %d per replica"
          % (strategy.num_replicas_in_sync, arguments.batch_size, arguments.batch_size // strategy.num_replicas_in_sync))
    with strategy.scope():
        model = build_network()
        if WEIGHTS is not None:
            model.load_weights(str(WEIGHTS), by_name=True)
        l2_penalty(model)
        if LOSS == "softmax_cross_entropy":
            loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        else:
            loss = lambda labels, outputs: tf.reduce_mean(  # noqa: E731
                tf.square(outputs - tf.one_hot(tf.cast(tf.reshape(labels, [-1]), tf.int32), len(CLASS_NAMES))), -1)
        model.compile(optimizer=make_optimizer(StudioSchedule(arguments.lr, steps_per_epoch)), loss=loss,
                      metrics=["accuracy"])
    model.fit(training, epochs=arguments.epochs, validation_data=validation, verbose=2)
    if test_images is not None:
        test_loss, test_accuracy = model.evaluate(channels_last(test_images), test_labels, verbose=0)[:2]
        print("test accuracy %.4f, test loss %.4f" % (test_accuracy, test_loss))
    save_keras_weights(model, arguments.out, (mean, stddev))
    print("wrote %s" % arguments.out)

)PY";

}  // namespace

std::string keras_training_script(const project::Project& project, const ModelCard& card,
                                  const std::string& weights_file) {
    const Network network = network_of(project, card);
    std::ostringstream out;
    out << header(project, card, "Keras (TensorFlow) and tf.distribute.MirroredStrategy", keras_running,
                  "pip install tensorflow h5py numpy pillow (pillow: image folders)")
        << "import argparse\nimport gzip\nimport json\nimport math\nimport os\nimport sys\nimport tempfile\n"
        << "from pathlib import Path\n\n"
        << "import h5py\nimport numpy as np\nimport tensorflow as tf\nfrom tensorflow import keras\n"
        << "from tensorflow.keras import layers\n\n"
        << training_constants(project, card, weights_file) << layer_weights(network)
        << python_training_data(project, card)
        << "# ---- The network ----------------------------------------------------------------------------\n\n"
        << "def build_network():\n"
        << "    \"\"\"The project's network, channels-last as Keras is, with the project's initialisers.\"\"\"\n"
        << keras_layers(network, true) << "    return keras.Model(inputs=" << network.names.front()
        << ", outputs=" << network.names.back() << ", name=" << py_string(project_name(project, card)) << ")  # "
        << (project.network.loss == model::LossKind::softmax_cross_entropy ? "logits: the loss applies the softmax"
                                                                           : "the outputs")
        << "\n\n\n"
        << save_function << keras_training << project_text(project);
    return out.str();
}

}  // namespace bps::session
