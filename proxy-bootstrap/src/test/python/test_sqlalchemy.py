"""SQLAlchemy (2.x, over psycopg 3) through Ashlar, compared with SQLAlchemy straight to PostgreSQL.

What an application does at start: the inspector reads the tables, columns, keys, indexes and comments (psycopg's
catalog queries, which the proxy's catalog database answers), and metadata.create_all() checks which mapped tables
exist and creates the others. Through the sharded logical database they must see what they see of one PostgreSQL
database holding the same tables: t_order and t_order_item once each under their logical names, no actual table.
"""

import pytest
import sqlalchemy
from sqlalchemy import Column, Integer, MetaData, String, Table, inspect
from sqlalchemy.pool import NullPool

from support import Endpoint, Target

TARGETS = ["proxy_sharded", "proxy_pooled", "direct"]

TABLES = ["t_address", "t_order", "t_order_item"]

#: A table no rule names, which create_all makes (a single table on the sharded database's default data source).
NEW_TABLE = "t_sqlalchemy_made"


def engine(endpoint: Endpoint) -> sqlalchemy.Engine:
    url = sqlalchemy.URL.create("postgresql+psycopg", username=endpoint.user, password=endpoint.password,
                                host=endpoint.host, port=endpoint.port, database=endpoint.dbname)
    return sqlalchemy.create_engine(url, poolclass=NullPool, connect_args={"connect_timeout": 5})


def described(endpoint: Endpoint, tables: list[str]) -> dict:
    """Everything the inspector tells of the tables, with SQLAlchemy's type objects written out."""
    inspector = inspect(engine(endpoint))
    result = {"tables": sorted(inspector.get_table_names())}
    for table in tables:
        result[table] = {
            "columns": [{**column, "type": repr(column["type"])} for column in inspector.get_columns(table)],
            "primary key": inspector.get_pk_constraint(table),
            "foreign keys": inspector.get_foreign_keys(table),
            "indexes": inspector.get_indexes(table),
            "unique": inspector.get_unique_constraints(table),
            "checks": inspector.get_check_constraints(table),
            "comment": inspector.get_table_comment(table),
            "exists": inspector.has_table(table),
        }
    result["actual tables"] = [inspector.has_table(each) for each in ("t_order_0", "t_order_item_1")]
    return result


@pytest.mark.parametrize("target", TARGETS, indirect=True)
def test_inspector_sees_the_logical_tables(target: Target, reference):
    assert described(target.endpoint, TABLES) == described(reference, TABLES)


@pytest.mark.parametrize("target", TARGETS, indirect=True)
def test_create_all_keeps_the_tables_that_exist_and_makes_the_others(target: Target, reference):
    def mapped() -> MetaData:
        metadata = MetaData()
        Table("t_order", metadata, Column("order_id", sqlalchemy.BigInteger, primary_key=True),
              Column("user_id", Integer, nullable=False), Column("status", String(50), nullable=False))
        Table(NEW_TABLE, metadata, Column("id", Integer, primary_key=True), Column("name", String(30)))
        return metadata

    results = {}
    for name, endpoint in (("target", target.endpoint), ("reference", reference)):
        metadata = mapped()
        made = engine(endpoint)
        try:
            metadata.create_all(made)
            metadata.create_all(made)  # a second start of the application: nothing to make
            with made.begin() as conn:
                conn.execute(metadata.tables[NEW_TABLE].insert(), [{"id": 1, "name": "one"}])
                rows = conn.execute(sqlalchemy.text(f"select id, name from {NEW_TABLE}")).all()
            # Another engine, another session: it sees the table the first made.
            results[name] = (described(endpoint, [NEW_TABLE]), [tuple(row) for row in rows])
        finally:
            metadata.tables[NEW_TABLE].drop(made, checkfirst=True)
    assert results["target"] == results["reference"]
    assert results["target"][1] == [(1, "one")]
