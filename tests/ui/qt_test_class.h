// The Qt tests share one executable, ui_tests (tests/ui/qt_test_main.cpp): each test source
// registers its QTest class with BACKPROP_QT_TEST where it would have had QTEST_MAIN, and
// `ui_tests CLASS [QTest's arguments]` runs that class alone, in a process of its own, as its own
// executable did. One executable parses the Qt headers once per unity batch and links once,
// instead of once for each of thirty-odd tests.
#pragma once

#include <QTest>
#include <vector>

namespace bps::test {

struct QtTestClass {
    const char* name;
    bool needs_widgets;  // a QApplication (QTEST_MAIN), or a QCoreApplication (QTEST_GUILESS_MAIN)
    int (*run)(int argc, char** argv);
};

// Every class registered in this executable, in no set order.
std::vector<QtTestClass>& qt_test_classes();

template <class TestClass>
int run_qt_test_class(int argc, char** argv) {
    TestClass test;
    return QTest::qExec(&test, argc, argv);
}

struct QtTestRegistration {
    QtTestRegistration(const char* name, bool needs_widgets, int (*run)(int, char**)) {
        qt_test_classes().push_back({name, needs_widgets, run});
    }
};

}  // namespace bps::test

// In place of QTEST_MAIN(TestClass) and QTEST_GUILESS_MAIN(TestClass).
#define BACKPROP_QT_TEST(TestClass)                                                       \
    static const bps::test::QtTestRegistration TestClass##_registration(#TestClass, true, \
                                                                        &bps::test::run_qt_test_class<TestClass>);
#define BACKPROP_QT_GUILESS_TEST(TestClass)                                                \
    static const bps::test::QtTestRegistration TestClass##_registration(#TestClass, false, \
                                                                        &bps::test::run_qt_test_class<TestClass>);
