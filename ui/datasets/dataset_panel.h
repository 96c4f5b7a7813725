#pragma once
// The datasets panel: the catalogue with what is on this computer, a Download button (the
// download itself belongs to app/, which listens to downloadRequested) and a browser of the
// training images, a page of 32 at a time, each captioned with its class.
#include <QWidget>
#include <filesystem>
#include <memory>
#include <thread>
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
    ~DatasetPanel() override;  // waits for a load in progress (about a second at most)

    QTableView* table() const { return table_; }
    DatasetListModel* model() const { return model_; }
    QPushButton* download_button() const { return download_; }
    QPushButton* show_samples_button() const { return show_samples_; }
    QPushButton* next_page_button() const { return next_page_; }
    QSpinBox* page_box() const { return page_; }
    QLabel* sample_status() const { return sample_status_; }
    // The selected row, or -1.
    int selected_row() const;
    void select_row(int row);

public slots:
    void refresh();
    // Loads the selected dataset on a worker thread (if not loaded already) and shows page 1.
    void show_samples();

signals:
    void downloadRequested(int row);
    // A page of thumbnails is on screen (page counts from 1).
    void samplesShown(int page);
    void samplesFailed(QString message);

private:
    void update_controls();
    void loaded(int row, std::shared_ptr<const datasets::Dataset> dataset, const QString& problem);
    void show_page(int page);
    void clear_thumbnails();

    DatasetListModel* model_;
    QTableView* table_;
    QLabel* details_;
    QPushButton* download_;
    QPushButton* refresh_;
    QPushButton* show_samples_;
    QSpinBox* page_;
    QPushButton* next_page_;
    QLabel* sample_status_;
    QWidget* thumbnails_;
    QGridLayout* grid_;

    std::thread loader_;
    bool loading_ = false;
    int samples_row_ = -1;  // the row whose training set is in samples_
    std::shared_ptr<const datasets::Dataset> samples_;
};

}  // namespace bps::ui
