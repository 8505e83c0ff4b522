"""Spider's SQL hardness classes (easy / medium / hard / extra), computed on a sqlglot tree.

The rules follow Spider's official ``evaluation.py`` (``Evaluator.eval_hardness``) on the
outermost query, including two of its quirks so that counts match published ones: a negated
condition (``NOT IN``, ``NOT LIKE``) counts as an aggregation, and so does each ``AND``/``OR``
joining ``HAVING`` conditions.

- component 1: WHERE, GROUP BY, ORDER BY, LIMIT present; one per extra joined table; one per
  ``OR`` and per ``LIKE`` in WHERE/HAVING.
- component 2: nested queries: subqueries used as condition values, plus a set operation.
- others: more than one aggregation; more than one selected column; more than one WHERE
  condition; more than one GROUP BY column.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

LEVELS = ("easy", "medium", "hard", "extra")


@dataclass(frozen=True)
class HardnessCounts:
    component1: int
    component2: int
    others: int

    @property
    def level(self) -> str:
        c1, c2, other = self.component1, self.component2, self.others
        if c1 <= 1 and other == 0 and c2 == 0:
            return "easy"
        if (other <= 2 and c1 <= 1 and c2 == 0) or (c1 <= 2 and other < 2 and c2 == 0):
            return "medium"
        if (
            (other > 2 and c1 <= 2 and c2 == 0)
            or (2 < c1 <= 3 and other <= 2 and c2 == 0)
            or (c1 <= 1 and other == 0 and c2 <= 1)
        ):
            return "hard"
        return "extra"


def spider_hardness(tree: exp.Expression) -> str:
    """Hardness class of a parsed query.

    >>> import sqlglot
    >>> spider_hardness(sqlglot.parse_one("SELECT count(*) FROM head WHERE age > 56"))
    'easy'
    """
    return hardness_counts(tree).level


def hardness_counts(tree: exp.Expression) -> HardnessCounts:
    main, set_ops = _outermost_select(tree)
    if not isinstance(main, exp.Select):
        return HardnessCounts(0, set_ops, 0)
    where = _conditions(main.args.get("where"))
    having = _conditions(main.args.get("having"))
    join_conditions = [c for join in main.args.get("joins") or [] for c in _conditions(join.args.get("on"))]
    group = main.args.get("group")
    group_items = list(group.expressions) if group is not None else []
    order = main.args.get("order")
    order_items = [o.this for o in order.expressions] if order is not None else []

    component1 = sum(main.args.get(key) is not None for key in ("where", "group", "order", "limit"))
    component1 += len(main.args.get("joins") or [])
    component1 += _count_or(main.args.get("where")) + _count_or(main.args.get("having"))
    component1 += sum(isinstance(_unnegated(c), exp.Like) for c in where + having)

    component2 = set_ops + sum(_nested_values(c) for c in join_conditions + where + having)

    aggregations = sum(_is_aggregate(item) for item in main.expressions)
    aggregations += sum(isinstance(c, exp.Not) for c in where)  # Spider's quirk
    aggregations += sum(_is_aggregate(item) for item in group_items)
    aggregations += sum(_aggregate_sides(item) for item in order_items)
    aggregations += max(len(having) - 1, 0) + sum(isinstance(c, exp.Not) for c in having)  # quirk
    others = int(aggregations > 1) + int(len(main.expressions) > 1) + int(len(where) > 1)
    others += int(len(group_items) > 1)
    return HardnessCounts(component1, component2, others)


def _outermost_select(tree: exp.Expression) -> tuple[exp.Expression, int]:
    """The first SELECT of the query and 1 if a set operation follows it (Spider nests the
    rest of ``A UNION B UNION C`` under A, so it counts one)."""
    node, set_ops = tree, 0
    while isinstance(node, (exp.SetOperation, exp.Subquery)):
        if isinstance(node, exp.SetOperation):
            set_ops = 1
        node = node.this
    return node, set_ops


def _conditions(clause: exp.Expression | None) -> list[exp.Expression]:
    """The conditions joined by AND/OR (through parentheses), left to right."""
    if clause is None:
        return []
    node = clause.this if isinstance(clause, (exp.Where, exp.Having)) else clause
    if isinstance(node, (exp.And, exp.Or)):
        return _conditions(node.this) + _conditions(node.expression)
    if isinstance(node, exp.Paren):
        return _conditions(node.this)
    return [node]


def _count_or(clause: exp.Expression | None) -> int:
    if clause is None:
        return 0
    node = clause.this if isinstance(clause, (exp.Where, exp.Having)) else clause
    if isinstance(node, (exp.And, exp.Or)):
        return int(isinstance(node, exp.Or)) + _count_or(node.this) + _count_or(node.expression)
    if isinstance(node, exp.Paren):
        return _count_or(node.this)
    return 0


def _unnegated(condition: exp.Expression) -> exp.Expression:
    return condition.this if isinstance(condition, exp.Not) else condition


def _nested_values(condition: exp.Expression) -> int:
    """Subqueries used as the value(s) a condition compares against."""
    node = _unnegated(condition)
    return sum(
        isinstance(child, (exp.Subquery, exp.Select))
        for key, child in node.args.items()
        if key != "this" and isinstance(child, exp.Expression)
    )


def _is_aggregate(item: exp.Expression) -> bool:
    node = item.this if isinstance(item, exp.Alias) else item
    return isinstance(node, exp.AggFunc)


def _aggregate_sides(item: exp.Expression) -> int:
    """ORDER BY items are ``col`` or ``col op col`` in Spider; count aggregated sides."""
    if isinstance(item, (exp.Add, exp.Sub, exp.Mul, exp.Div)):
        return _is_aggregate(item.this) + _is_aggregate(item.expression)
    return int(_is_aggregate(item))
