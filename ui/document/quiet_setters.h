#pragma once
// Showing a value in a widget without it counting as the learner's edit: the widget's signals are
// blocked while it is set. The inspector and the Train panel refresh from the document this way.
#include <QCheckBox>
#include <QComboBox>
#include <QSignalBlocker>

namespace bps::ui {

template <typename Box, typename Value>
void set_quietly(Box* box, Value value) {
    const QSignalBlocker blocker(box);
    box->setValue(value);
}

inline void select_quietly(QComboBox* box, int index) {
    const QSignalBlocker blocker(box);
    box->setCurrentIndex(index);
}

inline void check_quietly(QCheckBox* box, bool checked) {
    const QSignalBlocker blocker(box);
    box->setChecked(checked);
}

}  // namespace bps::ui
