#pragma once
// What the dashboard tests train on, written to disk as a learner's files would be: image folders
// of PNGs (read by the job as any project's folder is) and project files beside them.
#include <QImage>
#include <QString>
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "engine/project/project.h"
#include "tests/support/two_class_images.h"

namespace bps::test {

// A grayscale PNG through Qt's writer; `pixels` row by row.
inline bool write_gray_png(const std::filesystem::path& file, int size, const std::vector<std::uint8_t>& pixels) {
    QImage image(size, size, QImage::Format_Grayscale8);
    for (int y = 0; y < size; ++y)
        for (int x = 0; x < size; ++x) image.scanLine(y)[x] = pixels[static_cast<std::size_t>(y * size + x)];
    return image.save(QString::fromStdString(file.string()), "PNG");
}

// Two classes of 4x4 grayscale images, as tests/support/two_class_images.h draws them: class
// "left" brighter on the left half, "right" on the right. `count` images in all.
inline bool write_two_class_folder(const std::filesystem::path& folder, std::size_t count) {
    std::mt19937 generator(11);
    std::uniform_int_distribution<int> noise(0, 150);
    for (const char* name : {"left", "right"}) std::filesystem::create_directories(folder / name);
    for (std::size_t i = 0; i < count; ++i) {
        const bool left = i % 2 == 1;
        std::vector<std::uint8_t> pixels;
        for (int y = 0; y < 4; ++y)
            for (int x = 0; x < 4; ++x)
                pixels.push_back(static_cast<std::uint8_t>(noise(generator) + ((x < 2) == left ? 100 : 0)));
        std::string file = "image";
        file += std::to_string(i);
        file += ".png";
        if (!write_gray_png(folder / (left ? "left" : "right") / file, 4, pixels)) return false;
    }
    return true;
}

// `classes` classes of `size`x`size` grayscale images, `per_class` each: a bright square whose
// place depends on the class, with noise.
inline bool write_square_folder(const std::filesystem::path& folder, int classes, int per_class, int size) {
    std::mt19937 generator(5);
    std::uniform_int_distribution<int> noise(0, 60);
    for (int label = 0; label < classes; ++label) {
        std::string name = "class";
        name += std::to_string(label);
        std::filesystem::create_directories(folder / name);
        const int square = size / 4, column = (label % 4) * square, row = (label / 4) * square;
        for (int i = 0; i < per_class; ++i) {
            std::vector<std::uint8_t> pixels;
            for (int y = 0; y < size; ++y)
                for (int x = 0; x < size; ++x) {
                    const bool inside = x >= column && x < column + square && y >= row && y < row + square;
                    pixels.push_back(static_cast<std::uint8_t>(noise(generator) + (inside ? 180 : 0)));
                }
            std::string file = "image";
            file += std::to_string(i);
            file += ".png";
            if (!write_gray_png(folder / name / file, size, pixels)) return false;
        }
    }
    return true;
}

// The small MLP of two_class_images.h on a folder of those images: 256 images, a quarter held out.
inline project::Project two_class_folder_project(const std::filesystem::path& folder) {
    project::Project project = two_class_project();
    project.network.explicit_inputs = false;
    project.dataset.name.clear();
    project.dataset.folder = folder.string();
    project.dataset.height = 4;
    project.dataset.width = 4;
    project.dataset.channels = 1;
    return project;
}

}  // namespace bps::test
