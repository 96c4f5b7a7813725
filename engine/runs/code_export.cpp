#include "engine/runs/code_export.h"

#include <sstream>
#include <string_view>

#include "engine/runs/python_network.h"

namespace bps::session {

namespace {

// What both scripts share: where they come from, the constants of the model card, and reading images.
std::string preamble(const project::Project& project, const ModelCard& card, const std::string& framework,
                     const std::string& install) {
    const std::string name = project.name.empty() ? card.project : project.name;
    std::ostringstream out;
    out << "#!/usr/bin/env python3\n"
        << "\"\"\"The network of the Backprop Studio project " << py_string(name) << ", in " << framework << ".\n\n"
        << "It defines the same layers under the same names, loads the trained weights that Backprop Studio\n"
        << "exported (an HDF5 file in Keras's layout), and prints the three most probable classes of each\n"
        << "image given on the command line, as `backprop predict` does:\n\n"
        << "    python3 "
        << "SCRIPT.py IMAGE.png [IMAGE.png ...] [--json]\n\n"
        << "--json prints one JSON line per image with the probability of every class.\n"
        << "Needs: " << install << "\n\"\"\"\n";
    return out.str();
}

std::string constants(const ModelCard& card, const std::string& weights_file) {
    std::ostringstream out;
    out << "# The weights file, beside this script unless the path is absolute.\n"
        << "WEIGHTS = Path(__file__).resolve().parent / " << py_string(weights_file) << "\n"
        << "# What the network was trained on (the model card Backprop Studio keeps with the weights).\n"
        << "HEIGHT, WIDTH, CHANNELS = " << card.shape.height << ", " << card.shape.width << ", " << card.shape.channels
        << "\n"
        << "CLASS_NAMES = [";
    for (std::size_t i = 0; i < card.class_names.size(); ++i)
        out << (i > 0 ? ", " : "") << py_string(card.class_names[i]);
    out << "]\n"
        << "# Pixels are scaled to [0, 1], then normalised per channel: (x - MEAN) / STDDEV (empty: not at all).\n"
        << "MEAN = " << py_floats(card.normalization.mean) << "\n"
        << "STDDEV = " << py_floats(card.normalization.stddev) << "\n\n\n"
        << "def read_image(path):\n"
        << "    \"\"\"One image as a float32 array of HEIGHT x WIDTH x CHANNELS, scaled and normalised as in "
           "training.\n\n"
        << "    Images of another size are resized (bilinear); Backprop Studio's own resizing and colour\n"
        << "    conversion may differ slightly, so give images of the trained size for identical results.\n"
        << "    \"\"\"\n"
        << "    image = Image.open(path).convert(\"L\" if CHANNELS == 1 else \"RGB\")\n"
        << "    if image.size != (WIDTH, HEIGHT):\n"
        << "        image = image.resize((WIDTH, HEIGHT), Image.BILINEAR)\n"
        << "    pixels = np.asarray(image, dtype=np.float32).reshape(HEIGHT, WIDTH, CHANNELS) / np.float32(255)\n"
        << "    if MEAN:\n"
        << "        pixels = (pixels - np.array(MEAN, dtype=np.float32)) / np.array(STDDEV, dtype=np.float32)\n"
        << "    return pixels\n\n\n";
    return out.str();
}

std::string main_function(const std::string& predict_lines) {
    std::ostringstream out;
    out << "def main():\n"
        << "    parser = argparse.ArgumentParser(description=\"Predict the classes of images with the trained "
           "network.\")\n"
        << "    parser.add_argument(\"images\", nargs=\"+\", help=\"PNG or JPEG files\")\n"
        << "    parser.add_argument(\"--json\", action=\"store_true\", help=\"one JSON line per image, every class\")\n"
        << "    arguments = parser.parse_args()\n"
        << "    batch = np.stack([read_image(path) for path in arguments.images])  # N, H, W, C\n"
        << predict_lines << "    for path, row in zip(arguments.images, probabilities):\n"
        << "        if arguments.json:\n"
        << "            print(json.dumps({\"file\": path, \"probabilities\": [float(p) for p in row]}))\n"
        << "        else:\n"
        << "            top = np.argsort(-row, kind=\"stable\")[:3]\n"
        << "            print(path + \": \" + \", \".join(\"%s %.3f\" % (CLASS_NAMES[i], row[i]) for i in top))\n\n\n"
        << "if __name__ == \"__main__\":\n"
        << "    main()\n";
    return out.str();
}

}  // namespace

std::string pytorch_script(const project::Project& project, const ModelCard& card, const std::string& weights_file) {
    const Network network = network_of(project, card);
    const TorchLayers torch = torch_layers(network);
    const std::string& output = network.names.back();
    const bool softmax = project.network.loss == model::LossKind::softmax_cross_entropy;
    std::ostringstream out;
    out << preamble(project, card, "PyTorch", "pip install torch h5py numpy pillow")
        << "import argparse\nimport json\nfrom pathlib import Path\n\n"
        << "import h5py\nimport numpy as np\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
        << "from PIL import Image\n\n"
        << constants(card, weights_file) << "class Network(nn.Module):\n"
        << "    \"\"\"The project's network. Tensors are (batch, channels, height, width) until flattened.\"\"\"\n\n"
        << "    def __init__(self):\n        super().__init__()\n"
        << torch.modules << "\n"
        << "    def forward(self, " << network.names.front() << "):\n"
        << torch.forward << "        return "
        << (softmax ? cat({"F.softmax(", output, ", dim=1)  # class probabilities\n"}) : cat({output, "\n"})) << "\n\n"
        << "def load_weights(model, path):\n"
        << "    \"\"\"Copies the weights of a Keras-layout HDF5 file (layer/layer/kernel:0) into the model.\"\"\"\n"
        << "    with h5py.File(path, \"r\") as file, torch.no_grad():\n\n"
        << "        def weight(layer, name):\n"
        << "            return torch.from_numpy(np.asarray(file[layer][layer][name + \":0\"], dtype=np.float32))\n\n"
        << (torch.loading.empty() ? std::string("        pass  # no layer has weights\n") : torch.loading) << "\n\n"
        << main_function(
               "    model = Network()\n"
               "    load_weights(model, WEIGHTS)\n"
               "    model.eval()  # BatchNorm uses its running statistics, Dropout drops nothing\n"
               "    with torch.no_grad():\n"
               "        probabilities = model(torch.from_numpy(batch).permute(0, 3, 1, 2)).numpy()\n");
    return out.str();
}

std::string keras_script(const project::Project& project, const ModelCard& card, const std::string& weights_file) {
    const Network network = network_of(project, card);
    const bool softmax = project.network.loss == model::LossKind::softmax_cross_entropy;
    const std::string name = project.name.empty() ? card.project : project.name;
    std::ostringstream out;
    out << preamble(project, card, "Keras (TensorFlow)", "pip install tensorflow h5py numpy pillow")
        << "import argparse\nimport json\nfrom pathlib import Path\n\n"
        << "import numpy as np\nfrom PIL import Image\nfrom tensorflow import keras\nfrom tensorflow.keras import "
           "layers\n\n"
        << constants(card, weights_file) << "def build_network():\n"
        << "    \"\"\"The project's network, channels-last as Keras is: (batch, height, width, channels).\"\"\"\n"
        << keras_layers(network) << "    outputs = "
        << (softmax ? cat({"layers.Softmax(name=\"probabilities\")(", network.names.back(), ")\n"})
                    : cat({network.names.back(), "\n"}))
        << "    return keras.Model(inputs=" << network.names.front() << ", outputs=outputs, name=" << py_string(name)
        << ")\n\n\n"
        << main_function(
               "    model = build_network()\n"
               "    # by_name: the file's layers carry the project's names (Keras's h5 weights format).\n"
               "    model.load_weights(str(WEIGHTS), by_name=True)\n"
               "    probabilities = model.predict(batch, verbose=0)\n");
    return out.str();
}

}  // namespace bps::session
