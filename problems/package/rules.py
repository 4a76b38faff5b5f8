"""Bank-quality rules: what a published problem needs beyond a well-formed package. Each kind's
package part declares its own (`rules`); this is the one list a caller asks for."""

from __future__ import annotations

from dataclasses import dataclass

from problems.package.model import Package


@dataclass(frozen=True)
class Rule:
    """One bank-quality rule and where a package stands on it ("hidden tests: 7/12")."""

    what: str  # what the rule counts, e.g. "hidden tests"
    have: int
    need: int
    issue: str  # package_lint's complaint while it is not met

    @property
    def ok(self) -> bool:
        return self.have >= self.need



def package_rules(package: Package) -> list[Rule]:
    """Every bank-quality rule a published problem needs, with the package's count on each.

    The one list of these rules: package_lint is the unmet ones, and the studio shows them all
    on its editor pages before any validation. Its kind's package part says which they are."""
    rules: list[Rule] = package.kind_spec.part().rules(package)
    return rules


def package_lint(package: Package) -> list[str]:
    """Bank-quality rules beyond a well-formed package (what a published problem needs)."""
    return [rule.issue for rule in package_rules(package) if not rule.ok]
