#pragma once
// What the results views share when they leave the screen: a PNG or a CSV written whole (a failed
// write leaves an existing file as it was), with a message naming the file, and the class names as
// the engine's tables take them.
#include <QImage>
#include <QString>
#include <QStringList>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/session/run_recorder.h"

namespace bps::ui {

// A file an export must never replace, and what it is to the learner ("weights.h5 of the run
// 'Run 1'", "the image file you opened"): a run's own files, the project, an input.
struct KeptFile {
    std::filesystem::path file;
    QString what;
};

// False, with `error` ("FILE is WHAT: save under another name, so that it is kept"), when `path`
// names one of `kept` (engine/base/same_file.h's rule). Checked before anything is written.
bool refuse_kept(const QString& path, const std::vector<KeptFile>& kept, QString* error);

// A run's own files (everything in its folder, and the evaluation it may write later), each named
// for the learner ("weights.h5 of the run 'Run 1'").
std::vector<KeptFile> run_files(const session::RunRecord& record);

// False with `error` set ("Could not save FILE: REASON") when the file cannot be written.
bool save_png(const QImage& picture, const QString& path, QString* error);
bool save_text(const std::string& text, const QString& path, QString* error);

// The names of `classes` classes: the given ones, then each missing one as its index (as the CSV
// tables write a class without a name).
QStringList class_names_for(const QStringList& names, int classes);
std::vector<std::string> to_std_names(const QStringList& names);

}  // namespace bps::ui
