#pragma once
// Numbers as the Inside view writes them, in its tables and on its axes: three significant digits,
// scientific below 0.001 and from 100,000 without padding ("0.0981", "12.3", "1.2e-5", "-3.46e-4",
// "2.5e7"), so that a tiny gradient reads as short as a weight; "NaN", "inf", "-inf". And how
// many times one figure is another, as the findings about gradients say it ("340", "1,200").
#include <QString>
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "engine/base/number_text.h"

namespace bps::ui {

inline QString short_number(double value) {
    if (std::isnan(value)) return QStringLiteral("NaN");
    if (std::isinf(value)) return value > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    if (value == 0) return QStringLiteral("0");
    const double magnitude = std::abs(value);
    if (magnitude < 1e-3 || magnitude >= 1e5) {
        // "1.20e-05" reads as "1.2e-5": no trailing zeros, no exponent padding.
        const QString text = QString::number(value, 'e', 2);
        const qsizetype e = text.indexOf(QLatin1Char('e'));
        QString mantissa = text.left(e);
        QString exponent = text.mid(e + 1);
        while (mantissa.contains(QLatin1Char('.')) && mantissa.endsWith(QLatin1Char('0'))) mantissa.chop(1);
        if (mantissa.endsWith(QLatin1Char('.'))) mantissa.chop(1);
        const bool negative = exponent.startsWith(QLatin1Char('-'));
        if (exponent.startsWith(QLatin1Char('+')) || negative) exponent.remove(0, 1);
        while (exponent.size() > 1 && exponent.startsWith(QLatin1Char('0'))) exponent.remove(0, 1);
        return mantissa + QLatin1Char('e') + (negative ? QStringLiteral("-") : QString()) + exponent;
    }
    if (magnitude >= 1000) return QString::number(value, 'f', 0);
    return QString::number(value, 'g', 3);
}

// A ratio of at least 1 as a learner reads it: two significant digits, thousands separated.
inline QString ratio_text(double ratio) {
    if (!std::isfinite(ratio) || ratio >= 1e15) return QStringLiteral("1,000,000,000,000,000+");
    const double step = std::pow(10.0, std::floor(std::log10(std::max(ratio, 1.0))) - 1);
    const double rounded = std::max(1.0, std::round(ratio / step) * step);
    return QString::fromStdString(session::format_thousands(static_cast<std::uint64_t>(rounded)));
}

}  // namespace bps::ui
