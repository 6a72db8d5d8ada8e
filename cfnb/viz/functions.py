"""A functional op's functions, drawn beside it: one cluster per function (a While's cond and body, an If's
branches), its arguments named after the loop variables they receive and its results after what they become.

The ops inside a function are registered under the names lowering gives their inlined copies
(`while/body/mul` for `mul` in the body of `while`; lower_while_op.cc's and inline_function_utils.cc's naming),
so a firing of the lowered graph finds the node that stands for it in the functional drawing. Arguments a
function only passes through, and unused ones, are left out (`detail="all"` draws them).
"""
from .names import FUNCTIONAL, Names, arg_names, is_gradient, out_names, shown
from .plan import Cluster
from .style import CONST_STYLE, svg_id

_CALL = {"cond": "cond", "body": "body", "then_branch": "then", "else_branch": "else"}
FUNCTION_STYLE = {"style": "rounded,filled", "fillcolor": "#fbf7fb", "color": "#a64d79", "fontcolor": "#a64d79",
                  "fontsize": "10", "labeljust": "l"}


def functions_with_keys(op):
    """[(call name, attr key, FuncGraph)]: the functions `op` calls, named as lowering names their calls."""
    found = []
    for key in sorted(op.attr):
        value = op.attr[key]
        if key in _CALL and hasattr(value, "get_operations"):
            found.append((_CALL[key], key, value))
        elif key == "branches" and isinstance(value, list):
            found += [(f"branch{k}", f"branches[{k}]", fn) for k, fn in enumerate(value)]
    order = {"cond": 0, "body": 1, "then": 0, "else": 1}
    return sorted(found, key=lambda f: order.get(f[0], 2))


def draw_functions(builder, make_builder):
    """Draw the functions of every functional op `builder` drew as a node (unless its level folds them);
    `make_builder` builds a function body's plan the way `builder` built its graph's (fold._Builder)."""
    p = builder.p
    for op in builder.ops:
        if builder.role.get(op) != "node" or op.type not in FUNCTIONAL:
            continue
        if builder.collapse_depth is not None and builder.depth + 1 >= builder.collapse_depth \
                and op.name not in builder.expand:
            _note_folded(p, builder.element[op])
            continue
        args = arg_names(op, builder.names)
        gradient = is_gradient(op, builder.names.in_gradient)
        for call, key, fn in functions_with_keys(op):
            cid = svg_id("fn", builder.prefix + f"{op.name}/{call}", p.ids)
            p.clusters[cid] = Cluster(cid, f"{key}: {fn.name}", builder.element_cluster(op), dict(FUNCTION_STYLE))
            prefix = f"{builder.prefix}{op.name}/{call}/"
            p.owner[prefix[:-1]] = cid  # the call's own nodes (the inliner's Func/<call>/...) light up its box
            names = Names(fn.get_operations(), args.get(fn), gradient or "_grad" in fn.name)
            child = make_builder(p, fn.get_operations(), names, builder.detail, builder.expand, builder.collapse_depth,
                             None, None, cluster=cid, prefix=prefix, depth=builder.depth + 1)
            child.build()
            _draw_returns(p, child, op, call, fn, cid, names)
            first = next((e.id for e in p.elements.values() if e.cluster == cid), None)
            if first is not None:
                p.edge(builder.element[op], first, style="dotted", color="#a64d79", arrowhead="none",
                       lhead=f"cluster_{cid}")


def _draw_returns(p, child, op, call, fn, cid, names):
    """One `-> x` node per result the function computes (results it only passes through are left out)."""
    outs = out_names(op, names) if op.type not in ("While", "StatelessWhile") else None
    for k, t in enumerate(fn.outputs):
        src = child._source(t)
        if src is None:
            continue
        passed = src[1].type == "Placeholder" and src[1] in names.arg_names
        if passed and child.detail != "all":
            continue
        if call == "cond":
            what = "loop again?"
        elif op.type in ("While", "StatelessWhile"):
            what = names.arg_names.get(fn.inputs[k].op) if k < len(fn.inputs) else None
        else:
            what = outs[k] if outs and k < len(outs) else None
        label = f"return {k}" if child.detail == "all" else "\u2192 " + (shown(what) or f"output {k}")
        rid = p.add("return", f"{child.prefix}return{k}", label, dict(CONST_STYLE, fontcolor="#a64d79"), cid, [],
                    prefix="ret")
        p.edge(src[0], rid, color="#a64d79")


def _note_folded(p, eid):
    """A functional op whose functions are folded says so (the explorer's expand draws them)."""
    element = p.elements[eid]
    p.elements[eid] = element._replace(label=element.label + "\n(functions folded)")

