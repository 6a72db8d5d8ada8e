"""Which cell line built each op: `__cf.at(line)` starts a statement (converters/lines.py puts one before every
statement); the ops built since the previous mark belong to the previous statement."""
import cfnb


def at(cell, line):
    graph = cfnb.get_default_graph()
    seen, current = cell.marks.get(graph, (0, None))
    ops = graph._ops
    if current is not None:
        for op in ops[seen:]:
            cell.op_line.setdefault(op, current)
    cell.marks[graph] = (len(ops), line)


def finish_lines(cell):
    """Give the ops built after each graph's last statement mark that statement's line."""
    for graph, (seen, current) in list(cell.marks.items()):
        if current is not None:
            for op in graph._ops[seen:]:
                cell.op_line.setdefault(op, current)
        cell.marks[graph] = (len(graph._ops), current)
