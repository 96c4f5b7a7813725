// libFuzzer target: one image file (PNG, JPEG, or anything else stb is handed) decoded and
// resized as the image-folder import does, to 28x28 grayscale and to 7x5 RGB.
#include <exception>

#include "datasets/image_folder.h"
#include "tests/fuzz/scratch_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto file = bps::fuzz::scratch_file("image.png", data, size);
    for (const bps::datasets::ImageFolderOptions& options :
         {bps::datasets::ImageFolderOptions{28, 28, 1}, bps::datasets::ImageFolderOptions{7, 5, 3}}) {
        try {
            (void)bps::datasets::read_image_file(file, options);
        } catch (const std::exception&) {
        }
    }
    return 0;
}
