#include "ui/document/edit_gesture.h"

#include <QEvent>

#include "ui/document/network_document.h"

namespace bps::ui {

EditGesture::EditGesture(NetworkDocument* document, QObject* parent) : QObject(parent), document_(document) {}

void EditGesture::watch(QObject* widget) {
    widget->installEventFilter(this);
}

int EditGesture::join(QObject* source) {
    if (gesture_ == 0 || source_ != source) begin(source);
    return gesture_;
}

void EditGesture::begin(QObject* source) {
    gesture_ = document_->new_gesture();
    source_ = source;
}

void EditGesture::end() {
    gesture_ = 0;
    source_ = nullptr;
}

void EditGesture::end_for(QObject* source) {
    if (source_ == source) end();
}

bool EditGesture::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::FocusOut && watched == source_) end();
    return QObject::eventFilter(watched, event);
}

}  // namespace bps::ui
