#pragma once
// What the results views share when they leave the screen: a PNG or a CSV written whole (a failed
// write leaves an existing file as it was), with a message naming the file, and the class names as
// the engine's tables take them.
#include <QImage>
#include <QString>
#include <QStringList>
#include <string>
#include <vector>

namespace bps::ui {

// False with `error` set ("Could not save FILE: REASON") when the file cannot be written.
bool save_png(const QImage& picture, const QString& path, QString* error);
bool save_text(const std::string& text, const QString& path, QString* error);

// The names of `classes` classes: the given ones, then each missing one as its index (as the CSV
// tables write a class without a name).
QStringList class_names_for(const QStringList& names, int classes);
std::vector<std::string> to_std_names(const QStringList& names);

}  // namespace bps::ui
