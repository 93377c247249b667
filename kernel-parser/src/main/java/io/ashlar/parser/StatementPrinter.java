package io.ashlar.parser;

import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.Assignment;
import io.ashlar.parser.statement.ColumnEquality;
import io.ashlar.parser.statement.ColumnReference;
import io.ashlar.parser.statement.Conjunction;
import io.ashlar.parser.statement.CopyStatement;
import io.ashlar.parser.statement.DdlStatement;
import io.ashlar.parser.statement.ForeignKey;
import io.ashlar.parser.statement.DeallocateStatement;
import io.ashlar.parser.statement.DeleteStatement;
import io.ashlar.parser.statement.DistinctKind;
import io.ashlar.parser.statement.DiscardStatement;
import io.ashlar.parser.statement.ExecuteStatement;
import io.ashlar.parser.statement.GroupByItem;
import io.ashlar.parser.statement.IndexReference;
import io.ashlar.parser.statement.InsertColumn;
import io.ashlar.parser.statement.InsertStatement;
import io.ashlar.parser.statement.InsertValue;
import io.ashlar.parser.statement.LiteralKind;
import io.ashlar.parser.statement.LiteralValue;
import io.ashlar.parser.statement.MergeStatement;
import io.ashlar.parser.statement.OrderByItem;
import io.ashlar.parser.statement.OtherStatement;
import io.ashlar.parser.statement.Pagination;
import io.ashlar.parser.statement.PaginationValue;
import io.ashlar.parser.statement.ParameterMarker;
import io.ashlar.parser.statement.ParameterValue;
import io.ashlar.parser.statement.PrepareStatement;
import io.ashlar.parser.statement.ProjectionItem;
import io.ashlar.parser.statement.QueryBlock;
import io.ashlar.parser.statement.ResetStatement;
import io.ashlar.parser.statement.SelectStatement;
import io.ashlar.parser.statement.SetOperation;
import io.ashlar.parser.statement.SetStatement;
import io.ashlar.parser.statement.ShardingCondition;
import io.ashlar.parser.statement.ShowStatement;
import io.ashlar.parser.statement.SourceRange;
import io.ashlar.parser.statement.SqlValue;
import io.ashlar.parser.statement.TableReference;
import io.ashlar.parser.statement.TransactionStatement;
import io.ashlar.parser.statement.UpdateStatement;
import io.ashlar.parser.statement.ValuesRow;
import java.util.List;
import java.util.TreeSet;

/**
 * Describes an {@link AnalyzedStatement} as stable, line-oriented text: one fact per line, source
 * ranges shown with the text they cover. Used by golden-file tests (a failure prints the actual
 * description ready to paste) and for EXPLAIN-style debugging output.
 */
public final class StatementPrinter {
    private final String sql;
    private final StringBuilder out = new StringBuilder(256);

    private StatementPrinter(String sql) {
        this.sql = sql;
    }

    /** The description of {@code statement}. */
    public static String describe(AnalyzedStatement statement) {
        StatementPrinter printer = new StatementPrinter(statement.sql());
        printer.print(statement);
        return printer.out.toString();
    }

    private void print(AnalyzedStatement statement) {
        line(statement.kind() + " (" + statement.command() + ")");
        List<TableReference> tables = statement.tables();
        for (int i = 0; i < tables.size(); i++) {
            TableReference table = tables.get(i);
            StringBuilder text = new StringBuilder("table #").append(i).append(' ').append(table.name())
                    .append(' ').append(table.role()).append(" block ").append(table.block()).append(' ')
                    .append(range(table.range()));
            if (!table.nameRange().equals(table.range())) {
                text.append(" name ").append(range(table.nameRange()));
            }
            table.alias().ifPresent(alias -> text.append(" alias ").append(alias));
            if (table.quoted()) {
                text.append(" quoted");
            }
            line(text.toString());
        }
        for (IndexReference index : statement.indexes()) {
            line((index.constraint() ? "constraint " : "index ") + index.name() + ' ' + range(index.range())
                    + (index.table().isPresent() ? " on #" + index.table().getAsInt() : ""));
        }
        for (QueryBlock block : statement.blocks()) {
            printBlock(block, statement.blocks().size() == 1);
        }
        if (!statement.parameters().isEmpty()) {
            StringBuilder text = new StringBuilder("parameters ").append(statement.parameterCount()).append(':');
            for (ParameterMarker marker : statement.parameters()) {
                text.append(' ').append(marker.jdbc() ? "?" : "$").append(marker.number()).append('@')
                        .append(marker.range().start());
            }
            line(text.toString());
        }
        switch (statement.body()) {
            case SelectStatement select -> printSelect(select);
            case InsertStatement insert -> printInsert(insert);
            case UpdateStatement update -> printUpdate(update);
            case DeleteStatement delete -> {
                line("target #" + delete.target());
                delete.where().ifPresent(where -> line("where " + range(where)
                        + (delete.currentOf() ? " current of" : "")));
                delete.returning().ifPresent(returning -> line("returning " + range(returning)));
            }
            case MergeStatement merge -> line("target #" + merge.target());
            case DdlStatement ddl -> {
                line(ddl.kind() + " " + ddl.objectType() + (ddl.ifExists() ? " if exists" : "")
                        + (ddl.ifNotExists() ? " if not exists" : "")
                        + ddl.query().map(q -> " query " + range(q)).orElse(""));
                for (ForeignKey key : ddl.foreignKeys()) {
                    line("foreign key #" + key.table() + " " + key.columns() + " references #" + key.referencedTable() + " " + key.referencedColumns()
                            + (key.name().isEmpty() ? "" : " name " + key.name()) + (key.options().isEmpty() ? "" : " options " + key.options())
                            + (key.notValid() ? " not valid" : ""));
                }
            }
            case CopyStatement copy -> line("copy " + (copy.from() ? "from" : "to")
                    + (copy.table().isPresent() ? " table #" + copy.table().getAsInt() : "")
                    + columns(copy.columns()) + copy.query().map(q -> " query " + range(q)).orElse("")
                    + (copy.stdio() ? " stdio" : "") + " options " + range(copy.options()));
            case TransactionStatement transaction -> line(transaction.command()
                    + transaction.isolationLevel().map(level -> " isolation " + level).orElse("")
                    + transaction.readOnly().map(readOnly -> readOnly ? " read only" : " read write").orElse("")
                    + transaction.deferrable().map(on -> on ? " deferrable" : " not deferrable").orElse("")
                    + (transaction.chain() ? " and chain" : "")
                    + transaction.name().map(name -> " name " + name).orElse(""));
            case SetStatement set -> line("set " + set.scope() + " " + set.name()
                    + (set.toDefault() ? " default" : " " + set.values()) + " " + range(set.valueRange()));
            case ResetStatement reset -> line("reset " + reset.name());
            case ShowStatement show -> line("show " + show.name());
            case PrepareStatement prepare -> line("prepare " + prepare.name() + " " + prepare.parameterTypes() + " "
                    + range(prepare.statement()));
            case ExecuteStatement execute -> {
                StringBuilder text = new StringBuilder("execute ").append(execute.name());
                for (SourceRange argument : execute.arguments()) {
                    text.append(' ').append(range(argument));
                }
                line(text.toString());
            }
            case DeallocateStatement deallocate -> line("deallocate " + deallocate.name().orElse("all"));
            case DiscardStatement discard -> line("discard " + discard.target());
            case io.ashlar.parser.statement.DeclareCursorStatement declare -> line("declare " + declare.name()
                    + (declare.binary() ? " binary" : "")
                    + declare.scroll().map(scroll -> scroll ? " scroll" : " no scroll").orElse("")
                    + (declare.hold() ? " with hold" : "") + " query " + range(declare.query()));
            case io.ashlar.parser.statement.FetchStatement fetch -> line((fetch.move() ? "move " : "fetch ")
                    + fetch.direction() + " " + (fetch.count() == io.ashlar.parser.statement.FetchStatement.ALL ? "all"
                    : Long.toString(fetch.count())) + " from " + fetch.cursor());
            case io.ashlar.parser.statement.CloseCursorStatement close -> line("close " + close.cursor().orElse("all"));
            case OtherStatement ignored -> {
                // kind and command say it all
            }
        }
        if (!statement.gaps().isEmpty()) {
            line("gaps " + new TreeSet<>(statement.gaps()));
        }
    }

    private void printBlock(QueryBlock block, boolean only) {
        boolean interesting = !block.where().isUnrestricted() || !block.joinEqualities().isEmpty() || block.outerJoin()
                || !only || block.parent() >= 0;
        if (!interesting) {
            return;
        }
        StringBuilder text = new StringBuilder("block ").append(block.id());
        if (block.parent() >= 0) {
            text.append(" in ").append(block.parent());
        }
        if (block.outerJoin()) {
            text.append(" outer-join");
        }
        if (!block.where().isUnrestricted() || block.where().disjuncts().size() > 1) {
            text.append(" where ");
            List<Conjunction> disjuncts = block.where().disjuncts();
            for (int i = 0; i < disjuncts.size(); i++) {
                if (i > 0) {
                    text.append(" | ");
                }
                Conjunction conjunction = disjuncts.get(i);
                if (conjunction.isUnrestricted()) {
                    text.append("(any)");
                }
                for (int j = 0; j < conjunction.conditions().size(); j++) {
                    if (j > 0) {
                        text.append(" & ");
                    }
                    text.append(condition(conjunction.conditions().get(j)));
                }
            }
        }
        for (ColumnEquality equality : block.joinEqualities()) {
            text.append(" join ").append(column(equality.left())).append(" = ").append(column(equality.right()));
        }
        line(text.toString());
    }

    private void printSelect(SelectStatement select) {
        if (select.setOperation() != SetOperation.NONE) {
            line("set operation " + select.setOperation());
        }
        if (select.valuesOnly()) {
            line("values only");
        }
        if (select.distinct() != DistinctKind.NONE) {
            line(select.distinct() + select.distinctOn().map(on -> " " + range(on)).orElse(""));
        }
        List<ProjectionItem> projections = select.projections();
        for (int i = 0; i < projections.size(); i++) {
            ProjectionItem item = projections.get(i);
            StringBuilder text = new StringBuilder("projection #").append(i).append(' ').append(item.kind()).append(' ')
                    .append(range(item.expressionRange()));
            item.alias().ifPresent(alias -> text.append(" alias ").append(alias));
            text.append(" name ").append(item.outputName());
            item.starQualifier().ifPresent(qualifier -> text.append(" of ").append(qualifier));
            item.column().ifPresent(column -> text.append(" column ").append(column(column)));
            item.aggregate().ifPresent(aggregate -> text.append(" aggregate ").append(aggregate.function())
                    .append(aggregate.distinct() ? " distinct" : "").append(aggregate.star() ? " star" : "")
                    .append(" arg ").append(range(aggregate.argumentRange())));
            if (item.containsAggregate() && item.aggregate().isEmpty()) {
                text.append(" contains-aggregate");
            }
            if (item.windowFunction()) {
                text.append(" window");
            }
            line(text.toString());
        }
        line("projections end @" + select.projectionsEnd());
        for (GroupByItem item : select.groupBy()) {
            line("group by " + range(item.range()) + (item.ordinal() > 0 ? " ordinal " + item.ordinal() : "")
                    + item.column().map(column -> " column " + column(column)).orElse("")
                    + (item.projectionIndex().isPresent() ? " -> #" + item.projectionIndex().getAsInt() : ""));
        }
        select.having().ifPresent(having -> line("having " + range(having)));
        for (OrderByItem item : select.orderBy()) {
            line("order by " + range(item.expressionRange()) + (item.descending() ? " desc" : " asc")
                    + (item.nullsFirst() ? " nulls first" : " nulls last")
                    + (item.ordinal() > 0 ? " ordinal " + item.ordinal() : "")
                    + item.column().map(column -> " column " + column(column)).orElse("")
                    + (item.projectionIndex().isPresent() ? " -> #" + item.projectionIndex().getAsInt() : ""));
        }
        line("order by insert @" + select.orderByInsertPosition());
        Pagination pagination = select.pagination();
        pagination.limit().ifPresent(limit -> line((pagination.fetch() ? "fetch " : "limit ") + pagination(limit)
                + (pagination.withTies() ? " with ties" : "")));
        pagination.offset().ifPresent(offset -> line("offset " + pagination(offset)));
        select.locking().ifPresent(locking -> line("lock " + locking.strength() + " " + range(locking.range())));
    }

    private void printInsert(InsertStatement insert) {
        line("target #" + insert.target() + columns(insert.columns())
                + (insert.columnsEnd().isPresent() ? " columns end @" + insert.columnsEnd().getAsInt() : ""));
        for (ValuesRow row : insert.rows()) {
            StringBuilder text = new StringBuilder("row ").append(range(row.range())).append(" end @")
                    .append(row.valuesEnd()).append(':');
            for (InsertValue value : row.values()) {
                text.append(' ').append(value.value().map(this::value).orElse(value.kind() + range(value.range())));
            }
            line(text.toString());
        }
        insert.query().ifPresent(query -> line("query " + range(query)));
        if (insert.defaultValues()) {
            line("default values");
        }
        insert.onConflict().ifPresent(conflict -> line("on conflict " + range(conflict)));
        insert.returning().ifPresent(returning -> line("returning " + range(returning)));
    }

    private void printUpdate(UpdateStatement update) {
        line("target #" + update.target());
        for (Assignment assignment : update.assignments()) {
            line("set " + assignment.columns() + " = " + assignment.value().map(this::value)
                    .orElse(range(assignment.valueRange())));
        }
        update.where().ifPresent(where -> line("where " + range(where) + (update.currentOf() ? " current of" : "")));
        update.returning().ifPresent(returning -> line("returning " + range(returning)));
    }

    private String pagination(PaginationValue value) {
        return value(value.value()) + " clause " + range(value.clauseRange());
    }

    private String condition(ShardingCondition condition) {
        StringBuilder text = new StringBuilder(column(condition.column())).append(' ');
        switch (condition.operator()) {
            case EQUAL -> text.append("= ").append(value(condition.values().get(0)));
            case LESS_THAN -> text.append("< ").append(value(condition.values().get(0)));
            case LESS_THAN_OR_EQUAL -> text.append("<= ").append(value(condition.values().get(0)));
            case GREATER_THAN -> text.append("> ").append(value(condition.values().get(0)));
            case GREATER_THAN_OR_EQUAL -> text.append(">= ").append(value(condition.values().get(0)));
            case BETWEEN -> text.append("between ").append(value(condition.values().get(0))).append(" and ")
                    .append(value(condition.values().get(1)));
            case IN -> {
                text.append("in (");
                for (int i = 0; i < condition.values().size(); i++) {
                    text.append(i == 0 ? "" : ", ").append(value(condition.values().get(i)));
                }
                text.append(')');
            }
        }
        return text.toString();
    }

    private String value(SqlValue value) {
        String text = switch (value) {
            case LiteralValue literal -> literal.kind() == LiteralKind.STRING
                    ? "'" + literal.value() + "'" : literal.value();
            case ParameterValue parameter -> "$" + parameter.number();
        };
        return text + value.typeName().map(type -> "::" + type).orElse("");
    }

    private static String column(ColumnReference column) {
        return column.schema().map(schema -> schema + ".").orElse("")
                + column.qualifier().map(qualifier -> qualifier + ".").orElse("") + column.name();
    }

    private String columns(List<InsertColumn> columns) {
        if (columns.isEmpty()) {
            return "";
        }
        StringBuilder text = new StringBuilder(" columns");
        for (InsertColumn column : columns) {
            text.append(' ').append(column.name());
        }
        return text.toString();
    }

    /** A range with the text it covers: {@code "text"@start}. */
    private String range(SourceRange range) {
        return '"' + range.text(sql).replace("\n", "\\n") + "\"@" + range.start();
    }

    private void line(String text) {
        out.append(text).append('\n');
    }
}
