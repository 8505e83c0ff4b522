"""SQL programs through sqlglot: atoms, compounds, templates and Spider hardness.

- atoms: the query's tokens, normalised: keywords and function names upper-case, table,
  column and alias names lower-case, every literal value ``<value>``; punctuation dropped.
- compounds: parent→child and grandparent→parent→child paths of the parse tree. A node's
  label is its keyword or operator (``SELECT``, ``WHERE``, ``EQ``, ``COUNT``...), its name for
  identifiers, ``<value>`` for literals; structural nodes that carry no token of their own
  (column, table, alias, parenthesis, subquery) are anonymised as ``_``.
- template: the query regenerated in one canonical spelling with table names ``tab``,
  column names ``col`` and values ``'value'``.

The default dialect is MySQL's, where ``"text"`` is a string (as in Spider) rather than a
quoted name.
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import TokenType

from tailsplit.programs.base import ProgramError, ProgramParse
from tailsplit.programs.hardness import LEVELS, spider_hardness

VALUE = "<value>"
ANONYMOUS = "_"
_PUNCTUATION = {TokenType.L_PAREN, TokenType.R_PAREN, TokenType.COMMA, TokenType.DOT, TokenType.SEMICOLON}
_NAME_TOKENS = {TokenType.VAR, TokenType.IDENTIFIER}
_VALUE_TOKENS = {TokenType.STRING, TokenType.NUMBER, TokenType.NATIONAL_STRING, TokenType.HEX_STRING}
_STRUCTURAL = (exp.Column, exp.Table, exp.TableAlias, exp.Alias, exp.Paren, exp.Tuple, exp.Subquery)


class SqlExtractor:
    """Atoms, compounds, template and hardness of one SQL query.

    >>> p = SqlExtractor().parse("SELECT count(*) FROM head WHERE age  >  56")
    >>> p.atoms
    ('*', '<value>', '>', 'COUNT', 'FROM', 'SELECT', 'WHERE', 'age', 'head')
    >>> p.template, p.hardness
    ("SELECT COUNT(*) FROM tab WHERE col > 'value'", 'easy')
    """

    name = "sql"
    hardness_levels = LEVELS

    def __init__(self, dialect: str = "mysql") -> None:
        self.dialect = dialect
        self._dialect = Dialect.get_or_raise(dialect)

    def parse(self, program: str) -> ProgramParse:
        try:
            tokens = self._dialect.tokenize(program)
            statements = self._dialect.parser().parse(tokens, program)
        except (ParseError, TokenError) as exc:
            raise ProgramError(f"is not SQL that sqlglot ({self.dialect}) can parse: {_reason(exc)}") from None
        if len(statements) != 1 or statements[0] is None:
            raise ProgramError(f"holds {len([s for s in statements if s is not None])} SQL statements, not one")
        tree = statements[0]
        if not isinstance(tree, exp.Expression):
            raise ProgramError("is not one SQL statement")
        atoms, compounds, hardness = sql_atoms(tokens), sql_compounds(tree), spider_hardness(tree)
        n_tokens = sum(token.token_type not in _PUNCTUATION for token in tokens)
        return ProgramParse(
            atoms=tuple(sorted(atoms)),
            compounds=tuple(sorted(compounds)),
            template=anonymised_sql(tree, self._dialect),
            hardness=hardness,
            n_tokens=n_tokens,
        )

    def canonical(self, program: str) -> str:
        """``program`` in one spelling, for exact match (see ``canonical_sql``)."""
        try:
            statements = self._dialect.parse(program)
        except (ParseError, TokenError) as exc:
            raise ProgramError(f"is not SQL that sqlglot ({self.dialect}) can parse: {_reason(exc)}") from None
        if len(statements) != 1 or not isinstance(statements[0], exp.Expression):
            raise ProgramError("is not one SQL statement")
        return canonical_sql(statements[0], self._dialect)


def canonical_sql(tree: exp.Expression, dialect: Dialect) -> str:
    """The query in sqlglot's spelling with lower-case names, values kept: equal for queries
    that differ only in case, spacing or quoting. Lower-cases ``tree``'s names in place.

    >>> from sqlglot.dialects.dialect import Dialect
    >>> d = Dialect.get_or_raise("mysql")
    >>> canonical_sql(d.parse("select  Name from SINGER where age>3")[0], d)
    'SELECT name FROM singer WHERE age > 3'
    """
    for node in tree.find_all(exp.Identifier):  # in place: this is the tree's last use
        node.set("this", node.name.lower())
    return tree.sql(dialect=dialect)


def _reason(exc: Exception) -> str:
    """sqlglot's first error as 'description at line L, column C'."""
    errors = getattr(exc, "errors", None)
    if errors:
        first = errors[0]
        return f"{first.get('description')} at line {first.get('line')}, column {first.get('col')}"
    return str(exc).splitlines()[0]


def sql_atoms(tokens: list) -> list[str]:
    """Every atom occurrence, in query order (repeats kept: counting is the caller's choice)."""
    atoms = []
    for i, token in enumerate(tokens):
        kind = token.token_type
        if kind in _PUNCTUATION:
            continue
        if kind in _VALUE_TOKENS:
            atoms.append(VALUE)
        elif kind in _NAME_TOKENS:
            is_function = i + 1 < len(tokens) and tokens[i + 1].token_type == TokenType.L_PAREN
            atoms.append(token.text.upper() if is_function else token.text.lower())
        else:
            atoms.append(" ".join(token.text.upper().split()))
    return atoms


def node_label(node: exp.Expr) -> str:
    if isinstance(node, exp.Identifier):
        return node.name.lower()
    if isinstance(node, exp.Literal):
        return VALUE
    if isinstance(node, exp.Star):
        return "*"
    if isinstance(node, exp.Ordered):
        return "DESC" if node.args.get("desc") else "ASC"
    if isinstance(node, _STRUCTURAL):
        return ANONYMOUS
    return node.key.upper()


def sql_compounds(tree: exp.Expr) -> list[str]:
    """Every compound occurrence (repeats kept), in tree order."""
    compounds = []
    for parent in tree.walk():
        parent_label = node_label(parent)
        for child in parent.iter_expressions():
            child_label = node_label(child)
            compounds.append(f"{parent_label} > {child_label}")
            for grandchild in child.iter_expressions():
                compounds.append(f"{parent_label} > {child_label} > {node_label(grandchild)}")
    return compounds


def anonymised_sql(tree: exp.Expression, dialect: Dialect) -> str:
    """The template of ``tree``, which is changed in place (callers are done with it)."""

    def anonymise(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Literal):
            return exp.Literal.string("value")
        if isinstance(node, (exp.Column, exp.Table)):
            node.set("this", exp.to_identifier("col" if isinstance(node, exp.Column) else "tab"))
        return node

    return dialect.generate(tree.transform(anonymise, copy=False), normalize=True)
