"""A location taxonomy: a rooted tree whose leaves are the locations and whose nodes are safe regions.

References
----------
[chen2016pldp] (the location taxonomy and safe regions); [tutorial] "Personalized Local Differential Privacy".
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from ldp_helpers._validation import Described, check_allocation, check_int, check_int_array, fail

#: memory one node of a Taxonomy takes (its parent entry, depth, children and leaf lists, as Python objects)
_BYTES_PER_NODE = 120


@dataclass(frozen=True)
class Taxonomy:
    """A rooted location tree given by ``parent[v]`` (−1 for the root); the leaves are the locations.

    References
    ----------
    [chen2016pldp] (the location taxonomy and safe regions).
    """

    parent: tuple
    children: tuple = field(init=False, repr=False)
    leaf_sets: tuple = field(init=False, repr=False)

    def __post_init__(self):
        parent = check_int_array("parent", self.parent, low=-1).ravel()
        n = parent.size
        check_allocation("parent", n, 4 * n, what="the tree's node lists")
        roots = np.flatnonzero(parent == -1)
        if roots.size != 1:
            fail(
                "parent",
                Described(f"{roots.size} roots"),
                "a tree: exactly one node with parent −1",
            )
        bad = np.flatnonzero((parent >= n) | (parent == np.arange(n)))
        if bad.size:
            v = int(bad[0])
            what = "a self-loop" if parent[v] == v else "a parent outside the nodes"
            fail(
                "parent",
                Described(f"{what} (parent[{v}] = {int(parent[v])})"),
                f"a tree: each parent a node id in [0, {n}) other than the node itself, −1 for the root",
            )
        depth = np.full(n, -1, dtype=np.int64)
        depth[roots[0]] = 0
        # walk up to a node of known depth; more than n steps means a cycle (O(n) in all)
        for v in range(n):
            path, u = [], v
            while depth[u] < 0:
                path.append(u)
                u = parent[u]
                if len(path) > n:
                    fail("parent", Described(f"a cycle through node {v}"), "a tree (no cycles)")
            for steps, w in enumerate(reversed(path), start=1):
                depth[w] = depth[u] + steps
        children = [[] for _ in range(n)]
        for v, p in enumerate(parent.tolist()):
            if p >= 0:
                children[p].append(v)
        leaves = [[v] for v in range(n)]  # a leaf covers itself
        # deepest first: an inner node's leaves are its children's
        for v in np.argsort(-depth, kind="stable"):
            if children[v]:
                leaves[v] = sorted(itertools.chain.from_iterable(leaves[c] for c in children[v]))
        object.__setattr__(self, "parent", tuple(parent.tolist()))
        object.__setattr__(self, "children", tuple(tuple(c) for c in children))
        object.__setattr__(self, "leaf_sets", tuple(tuple(x) for x in leaves))

    @classmethod
    def regular(cls, branching) -> Taxonomy:
        """A complete tree: the root has ``branching[0]`` children, each ``branching[1]``, … (breadth-first ids)."""
        branching = check_int_array("branching", branching, low=1).ravel()
        nodes = int(np.cumprod(branching).sum()) + 1
        # a node costs about 120 bytes here (Python ints in the parent tuple, depths, leaf lists), not 8
        check_allocation(
            "branching",
            branching.tolist(),
            nodes,
            itemsize=_BYTES_PER_NODE,
            what=f"{nodes:,} nodes",
        )
        parent, level = [-1], [0]
        for b in branching:
            first = len(parent)
            parent += [v for v in level for _ in range(int(b))]
            level = list(range(first, len(parent)))
        return cls(tuple(parent))

    @property
    def root(self) -> int:
        """The root node (the whole universe: τ = root is ε-LDP)."""
        return self.parent.index(-1)

    @property
    def locations(self) -> np.ndarray:
        """The leaves (locations), sorted."""
        return np.array(self.leaf_sets[self.root])

    def check_node(self, name: str, node) -> int:
        """A node id of this tree (a safe region)."""
        return check_int(name, node, low=0, high=len(self.parent) - 1)

    def leaves_under(self, node) -> np.ndarray:
        """The locations a safe region covers (the leaves under ``node``)."""
        return np.array(self.leaf_sets[self.check_node("node", node)])
