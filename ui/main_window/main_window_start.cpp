// The window's Start tab: the templates File ▸ New offers, the course, Open… and the recent
// projects, each doing what its menu entry does and then showing where the work goes on.
#include <QTabWidget>
#include <algorithm>

#include "ui/course/course_panel.h"
#include "ui/document/network_document.h"
#include "ui/main_window/main_window.h"
#include "ui/main_window/recent_files.h"
#include "ui/start/start_page.h"

namespace bps::ui {

void MainWindow::install_start_page() {
    start_page_ = new StartPage(panels_);
    project::Project blank = blank_project();
    blank.description =
        tr("An input and an output, nothing between: build your own network from the palette.").toStdString();
    std::vector<StartPage::Template> templates{{blank_template, tr("Blank"), std::move(blank)}};
    for (const std::string& name : project::example_names()) {
        project::Project example = project::example_project(name);
        const QString title = QString::fromStdString(example.name.empty() ? name : example.name);
        templates.push_back({QString::fromStdString(name), title, std::move(example)});
    }
    // The smallest network first: the order a learner meets them in.
    std::stable_sort(templates.begin(), templates.end(), [](const auto& a, const auto& b) {
        return a.project.network.layers.size() < b.project.network.layers.size();
    });
    start_page_->set_templates(templates);
    start_page_->set_recent(RecentFiles(settings_).files());
    start_page_->set_show_at_start(settings_.value(StartPage::show_at_start_key, true).toBool());
    // Last: the Network tab stays the first, where the work is.
    panels_->addTab(start_page_, tr("Start"));

    // A project opened before the window shows (a file dropped, a checkpoint resumed) is what the
    // learner asked for: no Start tab over it. start() offers it after its own opening.
    connect(document_, &NetworkDocument::replaced, this, [this] { offer_start_page_ = false; });
    connect(start_page_, &StartPage::showAtStartChanged, this,
            [this](bool show) { settings_.setValue(StartPage::show_at_start_key, show); });
    connect(start_page_, &StartPage::templateChosen, this, [this](const QString& name) {
        if (new_project(name)) panels_->setCurrentIndex(0);
    });
    connect(start_page_, &StartPage::openRequested, this, [this] {
        if (!may_discard_changes()) return;
        const QString path = prompts_.open_path();
        if (!path.isEmpty() && load_file(path)) panels_->setCurrentIndex(0);
    });
    connect(start_page_, &StartPage::recentChosen, this, [this](const QString& path) {
        if (open_recent(path)) panels_->setCurrentIndex(0);
    });
    connect(start_page_, &StartPage::courseRequested, this, [this] { panels_->setCurrentWidget(course_panel_); });
}

}  // namespace bps::ui
