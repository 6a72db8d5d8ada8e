"""Which while frame each op runs in, by TensorFlow's own rule (the executor's BFS from the inputs: an Enter
opens its `frame_name`, an Exit returns to the parent frame); drawings put one cluster round each frame."""
from collections import deque


def frames_of(graph):
    """Frame name of every op, by TensorFlow's BFS; Enter and Exit drawn inside their loop.

    Returns (frame_of: {op: frame name}, parent_of: {frame: parent frame, "" for the root}).
    """
    ops = graph.get_operations()
    consumers = {op: [] for op in ops}
    for op in ops:
        for t in op.inputs:
            consumers.setdefault(t.op, []).append(op)
        for c in op.control_inputs:
            consumers.setdefault(c, []).append(op)
    frame_of, parent_of = {}, {"": None}
    queue = deque()
    for op in ops:
        if not op.inputs and not op.control_inputs:
            frame_of[op] = ""
            queue.append(op)
    while queue:
        op = queue.popleft()
        frame = frame_of[op]
        if op.type == "Enter":
            out_frame = op.get_attr("frame_name")
        elif op.type == "Exit":
            out_frame = parent_of.get(frame, "")
        else:
            out_frame = frame
        for c in consumers.get(op, []):
            if c in frame_of:
                continue
            if c.type == "Enter":
                child = c.get_attr("frame_name")
                parent_of.setdefault(child, out_frame)
                frame_of[c] = child
            else:
                frame_of[c] = out_frame
            queue.append(c)
    for op in ops:
        frame_of.setdefault(op, "")
    return frame_of, parent_of
