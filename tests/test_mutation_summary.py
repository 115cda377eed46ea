"""`make mutate`'s table counts each module's mutants by what became of them."""

from __future__ import annotations

from bench.mutation_summary import module_of, table, tally

LINES = [
    "    app.text.sizes.x_human_size__mutmut_1: killed",
    "    app.text.sizes.x_human_size__mutmut_2: survived",
    "    app.text.sizes.x_rough_size__mutmut_1: timeout",
    "    app.core.budget.xǁBudgetǁcharge__mutmut_4: no tests",
    "    app.core.budget.xǁBudgetǁcharge__mutmut_5: killed",
    "some other line mutmut printed",
]


def test_a_method_and_a_function_are_counted_under_their_module() -> None:
    assert module_of("app.core.budget.xǁBudgetǁcharge__mutmut_4") == "app.core.budget"
    assert module_of("app.text.sizes.x_human_size__mutmut_12") == "app.text.sizes"


def test_the_share_killed_is_of_the_mutants_a_test_reached() -> None:
    lines = table(tally(LINES)).splitlines()
    assert lines[2] == "| app.core.budget | 2 | 1 | 0 | 1 | 100% |"
    assert lines[3] == "| app.text.sizes | 3 | 2 | 1 | 0 | 67% |"
    assert lines[4] == "| **all** | 5 | 3 | 1 | 1 | 75% |"
