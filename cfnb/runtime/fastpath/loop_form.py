"""The well-formed loop: what the static schedule asks of a while frame before compiling it.

`while_loop` and the lowering of a `While` both build each loop variable as one chain
Enter -> Merge(Enter, NextIteration) -> Switch(LoopCond) -> ... -> NextIteration, with Exit on the
Switch's false side and one LoopCond per frame (TensorFlow's `WhileContext._BuildLoop`,
`lower_while_op.cc`). A frame of that form runs as a Python `while` loop; anything else (a graph
imported or built by hand with the primitives) raises NotStatic, and the tagged-token executor,
which runs every graph by TensorFlow's rules, takes over.
"""
from ..graph_compiler import ENTER, EXIT, MERGE, NEXT, NORMAL, SWITCH


class NotStatic(Exception):
    """The graph has a shape this compiler does not handle; the executor runs it instead."""


def analyse_loop(graph, name):
    """(LoopCond, loop Merges, loop Switches, Exits) of while frame `name` of `graph` (a FrameGraph), or NotStatic."""
    exe, consumers, control_consumers = graph.exe, graph.consumers, graph.control_consumers
    info = exe.frames[name]
    nodes = info.nodes
    loop_conds = [it for it in nodes if it.kind == NORMAL and it.op is not None and it.op.type == "LoopCond"]
    if len(loop_conds) != 1:
        raise NotStatic(f"frame {name}: {len(loop_conds)} LoopCond nodes")
    pivot = loop_conds[0]
    merges, switches = [], []
    for it in nodes:
        if it.kind == MERGE and any(exe.items[s].kind == NEXT for s, _ in it.in_edges):
            srcs = [exe.items[s] for s, _ in it.in_edges]
            if len(srcs) != 2 or srcs[0].kind != ENTER or srcs[0].is_constant or srcs[1].kind != NEXT:
                raise NotStatic(f"loop Merge {it.name} is not Merge(Enter, NextIteration)")
            if any(port == 1 for _, _, port in consumers[it.id]):
                raise NotStatic(f"value_index of loop Merge {it.name} is used")
            merges.append(it)
        elif it.kind == SWITCH and it.in_edges[1][0] == pivot.id:
            if exe.items[it.in_edges[0][0]].kind != MERGE:
                raise NotStatic(f"loop Switch {it.name} does not read a Merge")
            for dst, _slot, port in consumers[it.id]:
                if port == 0 and exe.items[dst].kind != EXIT:
                    raise NotStatic(f"the false side of loop Switch {it.name} feeds a non-Exit")
            if control_consumers[it.id]:
                raise NotStatic(f"loop Switch {it.name} has control consumers")
            switches.append(it)
    merge_ids = {m.id for m in merges}
    for sw in switches:
        if sw.in_edges[0][0] not in merge_ids:
            raise NotStatic(f"loop Switch {sw.name} does not read a loop Merge")
    exits = [it for it in nodes if it.kind == EXIT]
    switch_ids = {s.id for s in switches}
    for ex in exits:
        src, port = ex.in_edges[0]
        if src not in switch_ids or port != 0:
            raise NotStatic(f"Exit {ex.name} is not fed by a loop Switch's false side")
    for it in nodes:
        if it.kind == MERGE and it.id not in merge_ids and any(exe.items[s].kind == ENTER for s, _ in it.in_edges):
            raise NotStatic(f"Merge {it.name} reads an Enter without a NextIteration")
    for enter in graph.enters_of[name]:
        # A non-constant Enter has a value in iteration 0 only: read by anything but its loop Merge, that node
        # waits for ever in iteration 1 (a stuck graph, which the executor reports), where a function parameter
        # would quietly be there every iteration.
        if not enter.is_constant and (control_consumers[enter.id] or any(
                dst not in merge_ids for dst, _slot, _port in consumers[enter.id])):
            raise NotStatic(f"non-constant Enter {enter.name} is read by more than its loop Merge")
    return pivot, merges, switches, exits
