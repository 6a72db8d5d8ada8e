"""Buffer forwarding: an element-wise op writes its result into an input nobody else can see.

TensorFlow's element-wise kernels ask `OpKernelContext::forward_input_or_allocate_output` for their
output: when the executor hands the kernel the *last* reference to an input buffer of the right
shape and dtype, the output reuses that buffer instead of allocating a new one. In a loop that
accumulates, `acc = acc + x` then runs in place, iteration after iteration, as `acc += x` does in
hand-written numpy.

The static schedule does the same, in two halves:

- *statically* (forward_dead_inputs, on the code codegen.py generates), an input can be
  forwarded only if it is a local variable of the generated code that no later line reads, so the
  value is dead once this op has run;
- *at run time* (here), only if no one else holds the array either: its reference count is the
  one a lone local variable gives (measured once, below, for this Python), it owns its memory
  (not a view of another array, such as a TensorArray element), it is writeable, and it already
  has the result's shape and dtype. Anything else (a constant, a fed value, a tensor also pushed
  on a history stack or written into a TensorArray, a fetched result) keeps the allocating kernel.

The result is bit-for-bit what the allocating kernel computes: the same numpy ufunc, told where to
write.
"""
import re
import sys

import numpy as np

# Element-wise ops whose kernels are these ufuncs (cfnb.ops.math_ops registers the same functions). AddN is
# np.add when it has two inputs, the only case codegen forwards: a functional loop's gradient accumulates with it.
UFUNCS = {
    "Add": np.add, "AddV2": np.add, "AddN": np.add, "Sub": np.subtract, "Mul": np.multiply,
    "Maximum": np.maximum, "Minimum": np.minimum,
}

_NUMERIC = frozenset("fiuc")
_getrefcount = sys.getrefcount


def forwarding_kernel(ufunc, kernel, candidates):
    """A two-input kernel that computes `ufunc(a, b)` into input `candidates[k]` when it may
    (see the module docstring), and calls the allocating `kernel` otherwise."""
    first = 0 in candidates
    second = 1 in candidates

    def forward(a, b):
        if first:
            count = _getrefcount(a)  # the statement _lone_local_refcount measures: keep them alike
            if count <= _LONE_LOCAL and _reusable(a, b):
                return ufunc(a, b, out=a)
        if second:
            count = _getrefcount(b)
            if count <= _LONE_LOCAL and _reusable(b, a):
                return ufunc(a, b, out=b)
        return kernel(a, b)

    return forward


def _reusable(buf, other):
    # ndim: a 0-d array stays what the allocating kernel returns for it, a numpy scalar
    return (type(buf) is np.ndarray and buf.ndim and buf.base is None and buf.flags.writeable
            and buf.dtype.kind in _NUMERIC and getattr(other, "dtype", None) == buf.dtype
            and (np.ndim(other) == 0 or other.shape == buf.shape))


def _lone_local_refcount():
    """The reference count `forward` sees for an array held only by one local variable of the
    generated code: measured through the same call shape, as it differs between Python versions."""
    seen = []

    def probe(a, b):
        count = _getrefcount(a)
        seen.append(count)
        return a

    namespace = {"np": np}
    exec("def frame(k):\n    v1 = np.zeros(2)\n    v2 = k(v1, None)\n    return v2\n", namespace)  # noqa: S102
    namespace["frame"](probe)
    return seen[0]


_LONE_LOCAL = _lone_local_refcount()


def forward_dead_inputs(body, defaults, forward_sites, forwarded):
    """Give each kernel that may forward (an element-wise op, forwarding_kernel; an item assignment,
    runtime/slice_update.py) whose input variable no later line of `body` reads a kernel that may write
    into that input, and clear the variable after the call, so that the result's buffer is again held
    by one variable only and the next op in a chain can reuse it too. `forward_sites`: kernel name ->
    (make(kernel, candidate inputs) -> the forwarding kernel, input refs, node name, inputs it may
    forward). Returns the new body.

    Inside a loop, "later" ends with the iteration: every variable a body line reads is assigned
    earlier in the same iteration, except the Merges' m-variables, which the iteration's last
    line reassigns (and reads, when a loop variable passes through unchanged). Enter parameters
    (p) are read by every iteration and constants (c) by every run: never candidates."""
    last_read = {}
    for n, line in enumerate(body):
        for name in _IDENTIFIER.findall(_ASSIGN.sub("", line, count=1)):
            last_read[name] = n
    out, forwarded_vars = [], set()
    for n, line in enumerate(body):
        out.append(line)
        call = _CALL.match(line)
        if call is None or call.group(2) not in forward_sites:
            continue
        make, refs, name, positions = forward_sites[call.group(2)]
        candidates = tuple(k for k, r in enumerate(refs) if k in positions
                           and _FORWARDABLE_VAR.fullmatch(r) and refs.count(r) == 1 and last_read.get(r) == n)
        if candidates:
            kernel = defaults[call.group(2)]
            defaults[call.group(2)] = make(kernel, candidates)
            forwarded[name] = candidates
            out.append(f"{call.group(1)}{' = '.join(refs[k] for k in candidates)} = None")
            forwarded_vars.update(refs[k] for k in candidates)
    # A loop's last line hands the next values to the Merges (`m4, = v18,`); the v-variable keeps
    # a second reference until it is reassigned, which would stop the m-variable being reused in
    # the next iteration: drop it once handed over.
    for n, line in enumerate(out):
        handover = _HANDOVER.match(line)
        if handover is None:
            continue
        merges, values = handover.group(2).split(", "), handover.group(3).split(", ")
        dropped = [v for m, v in zip(merges, values) if m in forwarded_vars and _VALUE_VAR.fullmatch(v)]
        if dropped:
            out.insert(n + 1, f"{handover.group(1)}{' = '.join(dropped)} = None")
        break
    return out


_CALL = re.compile(r"(\s*)\w+ = (k\d+)\(")
_HANDOVER = re.compile(r"(\s*)((?:m\d+)(?:, m\d+)*), = (.*),$")
_VALUE_VAR = re.compile(r"[vx]\d+(_\d+)?")
_IDENTIFIER = re.compile(r"\b[A-Za-z_]\w*\b")
_ASSIGN = re.compile(r"^\s*[\w, ]+ = ")  # an assignment's targets, which a read check leaves out
_FORWARDABLE_VAR = re.compile(r"[vmx]\d+(_\d+)?")
