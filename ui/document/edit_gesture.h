#pragma once
// One run of edits from one widget (a spin box's steps, a slider's drag) that the document merges
// into a single undo step (NetworkDocument's gestures). The run goes on while the same widget
// edits and keeps the focus; it ends when another widget edits, the widget loses the focus, or its
// owner ends it (an undo, another project, a run starting). Shared by the inspector and the Train
// panel.
#include <QObject>

namespace bps::ui {

class NetworkDocument;

class EditGesture : public QObject {
public:
    EditGesture(NetworkDocument* document, QObject* parent);

    // Leaving `widget` (it loses the focus) ends its run.
    void watch(QObject* widget);
    // The gesture `source`'s edit joins: its own run if it has one, else a new one.
    int join(QObject* source);
    // A new run for `source`, whatever came before (a slider pressed).
    void begin(QObject* source);
    void end();
    // Ends the run only if it is `source`'s (a slider released).
    void end_for(QObject* source);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    NetworkDocument* document_;
    int gesture_ = 0;
    QObject* source_ = nullptr;
};

}  // namespace bps::ui
