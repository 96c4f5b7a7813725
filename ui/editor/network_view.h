#pragma once
// The window onto the editor's canvas: zoom (the wheel zooms about the cursor; zoom_in, zoom_out,
// reset_zoom and fit_all for the View menu's Ctrl++, Ctrl+-, Ctrl+0 and F), panning with the middle
// mouse button or the scroll bars, a rubber band on the empty canvas, and a light grid drawn from
// the widget palette, so that it follows dark mode. Palette drops pass through to the scene, which
// asks the document for the layer. The view changes nothing in the network.
#include <QGraphicsView>
#include <QPoint>

namespace bps::ui {

class NetworkScene;

class NetworkView : public QGraphicsView {
    Q_OBJECT
public:
    static constexpr double min_zoom = 0.1;
    static constexpr double max_zoom = 4.0;
    static constexpr double zoom_step = 1.25;
    static constexpr double grid_spacing = 20;
    static constexpr double readable_zoom = 0.7;  // below it, a node's shape and parameters are too small to read  //
                                                  // scene units; every fifth line is stronger

    explicit NetworkView(NetworkScene* scene, QWidget* parent = nullptr);

    NetworkScene* network_scene() const { return scene_; }
    // The scale of the view: 1 shows the canvas at its own size.
    double zoom() const;

public slots:
    void zoom_in();
    void zoom_out();
    void reset_zoom();
    // Shows every node, at most at 1:1 (a small network is not blown up). Before the view is
    // shown it fits once it is.
    void fit_all();
    // For a project just opened: the whole network when it fits at readable_zoom or more, else
    // its start (the Input side) at readable_zoom. Before the view is shown it does so once it is.
    void show_network();
    // Scrolls the layer's node into view (a Problems row clicked, a search), keeping the zoom.
    void show_layer(const QString& name);

signals:
    void zoomChanged(double zoom);

protected:
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void drawBackground(QPainter* painter, const QRectF& rect) override;

private:
    // Scales by `factor` (clamped to the zoom limits) keeping the scene point under `view_pos` still.
    void zoom_by(double factor, const QPointF& view_pos);

    NetworkScene* scene_;
    bool fit_when_shown_ = false;
    bool show_network_when_shown_ = false;
    bool panning_ = false;
    QPoint pan_from_;
};

}  // namespace bps::ui
