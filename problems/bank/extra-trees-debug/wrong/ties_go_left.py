"""Known-wrong: the fixed forest, but a sample equal to the threshold goes left (`x[f] <=
threshold`), in fit and in predict; the specification sends it right (`x[f] < threshold` goes
left). Invisible on continuous data; a threshold that rounds onto a sample value, or a test row
exactly on a threshold, shows it.

Extremely randomized trees (Extra-Trees) for regression, in plain NumPy.

Each tree splits a node on a feature drawn at random, at a threshold drawn uniformly between
that feature's min and max among the samples in the node; no split search at all. The forest
averages its trees. Randomness comes from one numpy Generator shared by the trees, consumed in
a fixed order, so a given seed always builds the same forest.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Node:
    """A leaf (left is None) predicts `value`; an inner node sends x[feature] < threshold left."""

    value: float
    feature: int = -1
    threshold: float = 0.0
    left: Node | None = None
    right: Node | None = None


class ExtraTreeRegressor:
    """One extremely randomized regression tree."""

    def __init__(self, max_depth: int, min_samples_split: int, rng: np.random.Generator) -> None:
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.rng = rng

    def fit(self, X: np.ndarray, y: np.ndarray) -> ExtraTreeRegressor:
        X = np.asarray(X, dtype=np.float64)
        # reshape(-1), not squeeze(): squeeze() turns a single target into a 0-d array.
        y = np.asarray(y, dtype=np.float64).reshape(-1)
        self.n_features_ = X.shape[1]
        self.root_ = self._build(X, y, depth=0)
        return self

    def _build(self, X: np.ndarray, y: np.ndarray, depth: int) -> Node:
        node = Node(value=float(y.mean()))
        # Stopping rules first: they draw no random numbers.
        if depth >= self.max_depth or len(y) < self.min_samples_split or np.all(y == y[0]):
            return node
        feature = int(self.rng.integers(self.n_features_))
        column = X[:, feature]
        lo, hi = column.min(), column.max()
        if lo == hi:  # the feature is constant in this node: nothing to split on
            return node
        threshold = float(self.rng.uniform(lo, hi))
        go_left = column <= threshold  # the bug: ties go left
        if go_left.all() or not go_left.any():
            return node
        node.feature, node.threshold = feature, threshold
        node.left = self._build(X[go_left], y[go_left], depth + 1)
        node.right = self._build(X[~go_left], y[~go_left], depth + 1)
        return node

    def predict(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        out = np.empty(X.shape[0])
        self._predict_into(self.root_, X, np.arange(X.shape[0]), out)
        return out

    def _predict_into(self, node: Node, X: np.ndarray, rows: np.ndarray, out: np.ndarray) -> None:
        if node.left is None or node.right is None:
            out[rows] = node.value
            return
        go_left = X[rows, node.feature] <= node.threshold  # the bug: ties go left
        self._predict_into(node.left, X, rows[go_left], out)
        self._predict_into(node.right, X, rows[~go_left], out)


class ExtraTreesRegressor:
    """An average of `n_estimators` extra-trees, all fitted on the full training set."""

    def __init__(
        self, n_estimators: int = 10, max_depth: int = 8, min_samples_split: int = 2, seed: int = 0
    ) -> None:
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.seed = seed

    def fit(self, X: np.ndarray, y: np.ndarray) -> ExtraTreesRegressor:
        rng = np.random.default_rng(self.seed)
        self.trees_ = [
            ExtraTreeRegressor(self.max_depth, self.min_samples_split, rng).fit(X, y)
            for _ in range(self.n_estimators)
        ]
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        total = np.zeros(X.shape[0])
        for tree in self.trees_:
            total = total + tree.predict(X)
        return total / len(self.trees_)
