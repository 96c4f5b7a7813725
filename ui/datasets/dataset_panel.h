#pragma once
// The datasets panel: the catalogue with what is on this computer, a Download button (the
// download itself belongs to app/, which listens to downloadRequested), a "Use for this project"
// button (the window sets the project's dataset on useForProjectRequested) and a browser of the
// training images, a page of 32 at a time, each captioned with its class. Loading the images
// belongs to app/ too: the panel asks with samplesRequested and is answered through
// show_loaded_samples or show_load_failed (app/gui/dataset_loading.h wires the two).
#include <QWidget>
#include <filesystem>
#include <memory>
#include <vector>

#include "datasets/catalogue.h"

class QGridLayout;
class QLabel;
class QPushButton;
class QSpinBox;
class QTableView;

namespace bps::ui {

class DatasetListModel;

class DatasetPanel : public QWidget {
    Q_OBJECT
public:
    static constexpr int samples_per_page = 32;
    static constexpr int thumbnail_scale = 3;  // 28x28 and 32x32 are too small to see at 1:1

    DatasetPanel(std::vector<datasets::CatalogueEntry> entries, std::filesystem::path user_root,
                 QWidget* parent = nullptr);

    QTableView* table() const { return table_; }
    DatasetListModel* model() const { return model_; }
    QPushButton* download_button() const { return download_; }
    QPushButton* use_for_project_button() const { return use_for_project_; }
    QPushButton* show_samples_button() const { return show_samples_; }
    QPushButton* next_page_button() const { return next_page_; }
    QSpinBox* page_box() const { return page_; }
    QLabel* sample_status() const { return sample_status_; }
    // The selected row, or -1.
    int selected_row() const;
    void select_row(int row);

public slots:
    void refresh();
    // Shows page 1 of the selected dataset, asking for it with samplesRequested unless it is
    // loaded already.
    void show_samples();
    // The answers to samplesRequested(row).
    void show_loaded_samples(int row, std::shared_ptr<const datasets::Dataset> dataset);
    void show_load_failed(const QString& message);

signals:
    void downloadRequested(int row);
    // The learner wants the open project to train on row's dataset.
    void useForProjectRequested(int row);
    // The training set of row is wanted; the panel shows "Loading…" until it is answered.
    void samplesRequested(int row);
    // A page of thumbnails is on screen (page counts from 1).
    void samplesShown(int page);
    void samplesFailed(QString message);

private:
    void update_controls();
    void show_page(int page);
    void clear_thumbnails();

    DatasetListModel* model_;
    QTableView* table_;
    QLabel* details_;
    QPushButton* download_;
    QPushButton* use_for_project_;
    QPushButton* refresh_;
    QPushButton* show_samples_;
    QSpinBox* page_;
    QPushButton* next_page_;
    QLabel* sample_status_;
    QWidget* thumbnails_;
    QGridLayout* grid_;

    bool loading_ = false;  // samplesRequested is not answered yet
    int samples_row_ = -1;  // the row whose training set is in samples_
    std::shared_ptr<const datasets::Dataset> samples_;
};

}  // namespace bps::ui
