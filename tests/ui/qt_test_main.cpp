// ui_tests' main: `ui_tests CLASS [QTest's arguments]` runs one registered QTest class as QTEST_MAIN
// would (tests/ui/qt_test_class.h); ctest runs each class as a test of its own (tests/CMakeLists.txt).
#include <QApplication>
#include <QCoreApplication>
#include <algorithm>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "tests/ui/qt_test_class.h"

namespace bps::test {
std::vector<QtTestClass>& qt_test_classes() {
    static std::vector<QtTestClass> classes;
    return classes;
}
}  // namespace bps::test

namespace {
std::string class_names() {
    std::vector<std::string> names;
    for (const bps::test::QtTestClass& test : bps::test::qt_test_classes()) names.emplace_back(test.name);
    std::sort(names.begin(), names.end());
    std::string text;
    for (const std::string& name : names) text += "  " + name + "\n";
    return text;
}
}  // namespace

int main(int argc, char** argv) {
    if (argc < 2 || argv[1][0] == '-') {
        std::cerr << "usage: " << argv[0] << " CLASS [QTest's arguments]\nthe test classes:\n" << class_names();
        return 2;
    }
    const auto& classes = bps::test::qt_test_classes();
    const auto found = std::find_if(classes.begin(), classes.end(), [&](const bps::test::QtTestClass& test) {
        return std::strcmp(test.name, argv[1]) == 0;
    });
    if (found == classes.end()) {
        std::cerr << argv[0] << ": no test class " << argv[1] << "; the test classes are:\n" << class_names();
        return 2;
    }
    // QTest reads its own arguments after the program's name: the class's name is left out.
    std::vector<char*> arguments{argv[0]};
    arguments.insert(arguments.end(), argv + 2, argv + argc);
    int count = static_cast<int>(arguments.size());
    if (found->needs_widgets) {
        QApplication application(count, arguments.data());
        application.setAttribute(Qt::AA_Use96Dpi, true);  // as QTEST_MAIN sets it
        return found->run(count, arguments.data());
    }
    QCoreApplication application(count, arguments.data());
    return found->run(count, arguments.data());
}
