#include "ui/start/start_page.h"

#include <QApplication>
#include <QCheckBox>
#include <QDir>
#include <QEvent>
#include <QFileInfo>
#include <QFrame>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>
#include <stdexcept>

#include "datasets/catalogue.h"
#include "ui/start/template_card.h"
#include "ui/start/template_thumbnail.h"

namespace bps::ui {

namespace {

constexpr QSize thumbnail_size(180, 44);
// Beyond this the page's content stops growing and stays centred: lines and cards stay readable
// on a wide screen.
constexpr int content_max_width = 1280;

QLabel* heading(const QString& text, QWidget* parent) {
    auto* label = new QLabel(text, parent);
    QFont font = label->font();
    font.setBold(true);
    font.setPointSizeF(font.pointSizeF() * 1.2);
    label->setFont(font);
    label->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);  // close above what it heads
    return label;
}

QLabel* wrapped(const QString& text, QWidget* parent) {
    auto* label = new QLabel(text, parent);
    label->setWordWrap(true);
    // A wrapped label may get the height of more lines than it shows: its text stays at the top,
    // under its heading.
    label->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    return label;
}

// "Fashion-MNIST · 11 layers": what the template trains on and how big it is.
QString template_facts(const project::Project& project) {
    const project::DatasetSettings& dataset = project.dataset;
    QString images = QObject::tr("your image folder");
    if (dataset.folder.empty()) {
        try {
            images = QString::fromStdString(datasets::catalogue_entry(dataset.name).title);
        } catch (const std::invalid_argument&) {
            images = QString::fromStdString(dataset.name);
        }
    }
    const std::size_t layers = project.network.layers.size();
    const QString size = layers == 1 ? QObject::tr("1 layer") : QObject::tr("%1 layers").arg(layers);
    return QObject::tr("%1 · %2").arg(images, size);
}

}  // namespace

StartPage::StartPage(QWidget* parent)
    : QWidget(parent),
      templates_(new QGridLayout),
      recent_(new QListWidget(this)),
      open_(new QPushButton(tr("Open…"), this)),
      course_(new QPushButton(tr("Open the course"), this)),
      show_at_start_(new QCheckBox(tr("Show this page at start"), this)) {
    setObjectName("startPage");
    recent_->setObjectName("startRecentList");
    open_->setObjectName("startOpenButton");
    course_->setObjectName("startCourseButton");
    show_at_start_->setObjectName("startShowAtStart");
    show_at_start_->setChecked(true);
    show_at_start_->setToolTip(tr("Off: the studio opens on your last project (the Start tab stays)"));
    open_->setToolTip(tr("Open a project file (.json) or a trained network (.h5)"));
    course_->setDefault(true);

    // The page scrolls up and down on a small screen; never sideways: where four cards a row would
    // not fit, two do (fit_cards).
    auto* scroll = new QScrollArea(this);
    scroll_ = scroll;
    scroll->setObjectName("startScroll");
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* content = new QWidget(scroll);
    content_ = content;
    content->setMaximumWidth(content_max_width);
    scroll->setWidget(content);
    scroll->setAlignment(Qt::AlignHCenter | Qt::AlignTop);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(scroll);

    auto* title = new QLabel(tr("Welcome to Backprop Studio"), content);
    QFont title_font = title->font();
    title_font.setBold(true);
    title_font.setPointSizeF(title_font.pointSizeF() * 1.7);
    title->setFont(title_font);

    // The course first: the guided way in for someone new.
    auto* course_box = new QFrame(content);
    course_box->setObjectName("startCourseBox");
    course_box->setFrameShape(QFrame::StyledPanel);
    auto* course_layout = new QHBoxLayout(course_box);
    auto* course_text = new QVBoxLayout;
    course_text->addWidget(heading(tr("New to deep learning? Take the course"), course_box));
    course_text->addWidget(wrapped(tr("Short exercises you do in the studio, one idea at a time, each checked "
                                      "as you go. The instructions stay beside the canvas."),
                                   course_box));
    course_layout->addLayout(course_text, 1);
    course_layout->addWidget(course_, 0, Qt::AlignVCenter);

    auto* templates_box = new QVBoxLayout;
    templates_box->addWidget(heading(tr("Start from a template"), content));
    templates_box->addWidget(wrapped(tr("A network ready to train on the Network tab, or to change first. "
                                        "Hover a card for its whole description."),
                                     content));
    templates_->setSpacing(10);
    templates_box->addLayout(templates_);
    templates_box->addStretch(1);

    auto* files_box = new QVBoxLayout;
    files_box->addWidget(heading(tr("Open a project"), content));
    auto* open_row = new QHBoxLayout;
    open_row->addWidget(open_);
    open_row->addStretch(1);
    files_box->addLayout(open_row);
    files_box->addSpacing(6);
    files_box->addWidget(new QLabel(tr("Recent projects:"), content));
    recent_->setSelectionMode(QAbstractItemView::SingleSelection);
    recent_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    recent_->setTextElideMode(Qt::ElideMiddle);
    recent_->setWordWrap(false);
    recent_->setMinimumHeight(120);
    recent_->setSpacing(3);  // two lines a project: the space tells one from the next
    files_box->addWidget(recent_, 1);

    auto* columns = new QHBoxLayout;
    columns->setSpacing(24);
    columns->addLayout(templates_box, 3);
    columns->addLayout(files_box, 1);

    auto* layout = new QVBoxLayout(content);
    layout->setContentsMargins(24, 16, 24, 12);
    layout->setSpacing(12);
    layout->addWidget(title);
    layout->addWidget(wrapped(tr("Build a neural network, train it on images, and see what it learned."), content));
    layout->addWidget(course_box);
    layout->addLayout(columns, 1);
    layout->addWidget(show_at_start_, 0, Qt::AlignLeft);  // only its box and words take a click

    connect(open_, &QPushButton::clicked, this, &StartPage::openRequested);
    connect(course_, &QPushButton::clicked, this, &StartPage::courseRequested);
    connect(show_at_start_, &QCheckBox::toggled, this, &StartPage::showAtStartChanged);
    // One click opens, as a link would; Enter as well. A double-click's second half must not open
    // the file twice: by then the window has gone on to the Network tab and hidden the page.
    const auto choose = [this](QListWidgetItem* item) {
        if (!isVisible() || !item) return;
        if (const QString path = item->data(path_role).toString(); !path.isEmpty()) emit recentChosen(path);
    };
    connect(recent_, &QListWidget::itemClicked, this, choose);
    connect(recent_, &QListWidget::itemActivated, this, choose);
    set_recent({});
    scroll->viewport()->installEventFilter(this);
}

QString StartPage::first_sentence(const QString& description) {
    const QString text = description.simplified();
    const qsizetype end = text.indexOf(QLatin1String(". "));
    return end < 0 ? text : text.left(end + 1);
}

void StartPage::set_templates(const std::vector<Template>& templates) {
    while (QLayoutItem* item = templates_->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    const qreal ratio = devicePixelRatioF();
    for (std::size_t index = 0; index < templates.size(); ++index) {
        const Template& entry = templates[index];
        const QString description = QString::fromStdString(entry.project.description);
        auto* card =
            new TemplateCard(entry.title, first_sentence(description), template_facts(entry.project),
                             template_thumbnail(entry.project.network, thumbnail_size, palette(), ratio), this);
        card->setObjectName("startTemplate_" + entry.name);
        card->setProperty("templateName", entry.name);
        card->setToolTip(description);
        connect(card, &TemplateCard::clicked, this, [this, name = entry.name] { emit templateChosen(name); });
        templates_->addWidget(card, 0, static_cast<int>(index));
    }
    place_cards(cards_per_row_);
}

void StartPage::place_cards(int per_row) {
    std::vector<QWidget*> cards;
    while (QLayoutItem* item = templates_->takeAt(0)) {
        if (item->widget()) cards.push_back(item->widget());
        delete item;
    }
    for (int column = 0; column < templates_->columnCount(); ++column) templates_->setColumnStretch(column, 0);
    for (std::size_t index = 0; index < cards.size(); ++index) {
        const int at = static_cast<int>(index);
        templates_->addWidget(cards[index], at / per_row, at % per_row);
    }
    for (int column = 0; column < per_row; ++column) templates_->setColumnStretch(column, 1);
    cards_per_row_ = per_row;
}

// Four cards a row need the content's least width measured with four; below it, two a row.
void StartPage::fit_cards() {
    const int available = scroll_->viewport()->width();
    if (cards_per_row_ == 4) {
        content_->layout()->activate();
        four_across_width_ = content_->minimumSizeHint().width();
        if (four_across_width_ > available) place_cards(2);
    } else if (four_across_width_ > 0 && four_across_width_ <= available) {
        place_cards(4);
    }
}

bool StartPage::eventFilter(QObject* watched, QEvent* event) {
    if (watched == scroll_->viewport() && event->type() == QEvent::Resize) fit_cards();
    return QWidget::eventFilter(watched, event);
}

void StartPage::set_recent(const QStringList& paths) {
    recent_->clear();
    for (const QString& path : paths) {
        const QFileInfo file(path);
        // The name, and under it the folder, which tells two projects of one name apart.
        auto* item =
            new QListWidgetItem(file.fileName() + '\n' + QDir::toNativeSeparators(file.absolutePath()), recent_);
        item->setData(path_role, path);
        if (file.exists()) {
            item->setToolTip(QDir::toNativeSeparators(path));
        } else {
            item->setForeground(palette().color(QPalette::Disabled, QPalette::Text));
            item->setToolTip(tr("%1 is no longer there").arg(QDir::toNativeSeparators(path)));
        }
    }
    if (paths.isEmpty()) {
        auto* none = new QListWidgetItem(tr("None yet"), recent_);
        none->setFlags(Qt::NoItemFlags);
    }
}

// The course has the focus when the page comes up (Space opens it), unless the learner's focus is
// already on the page.
void StartPage::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (!isAncestorOf(QApplication::focusWidget())) course_->setFocus(Qt::OtherFocusReason);
}

void StartPage::set_show_at_start(bool show) {
    show_at_start_->setChecked(show);
}

TemplateCard* StartPage::template_card(const QString& name) const {
    return findChild<TemplateCard*>("startTemplate_" + name);
}

QStringList StartPage::template_names() const {
    QStringList names;
    for (int index = 0; index < templates_->count(); ++index)
        if (QWidget* card = templates_->itemAt(index)->widget())
            names.append(card->property("templateName").toString());
    return names;
}

}  // namespace bps::ui
