#include "ui/editor/number_text.h"

namespace bps::ui {

// Not QLocale: the CLI prints a comma whatever the locale, and the two must read alike.
QString thousands_text(std::uint64_t value) {
    const QString digits = QString::number(value);
    QString text;
    for (qsizetype i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) text += QLatin1Char(',');
        text += digits[i];
    }
    return text;
}

QString flops_text(double flops) {
    static const char* const prefixes[] = {"", "K", "M", "G", "T"};
    int prefix = 0;
    while (flops >= 1000.0 && prefix < 4) {
        flops /= 1000.0;
        ++prefix;
    }
    if (prefix == 0) return QString::number(flops, 'f', 0) + QStringLiteral(" FLOPs");
    return QString::number(flops, 'f', 2) + QLatin1Char(' ') + QLatin1String(prefixes[prefix]) +
           QStringLiteral("FLOPs");
}

QString bytes_text(std::uint64_t bytes) {
    static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = static_cast<double>(bytes);
    int unit = 0;
    while (value >= 1024.0 && unit < 4) {
        value /= 1024.0;
        ++unit;
    }
    const int decimals = unit == 0 || value >= 100.0 ? 0 : 1;
    return QString::number(value, 'f', decimals) + QLatin1Char(' ') + QLatin1String(units[unit]);
}

}  // namespace bps::ui
