"""TensorFlow names that cfnb spells differently: the same objects under TensorFlow's other names."""
import cfnb
from cfnb.ops.array_ops import squeeze as squeeze_v2  # noqa: F401 - `array_ops.squeeze_v2`

mul = cfnb.multiply                 # `math_ops.mul` (gen_math_ops' name, re-exported by math_ops)
def enter(data, frame_name, is_constant=False, parallel_iterations=10, name=None):
    """`gen_control_flow_ops.enter`, the raw op: Enter's shape function gives a constant Enter its input's
    shape and a loop variable's Enter an unknown one (cfnb's builder keeps the input shape unless told)."""
    from cfnb.ops.control_flow_ops import enter as cfnb_enter
    return cfnb_enter(data, frame_name, is_constant, parallel_iterations, use_input_shape=is_constant, name=name)


VariableV1 = cfnb.Variable          # `variable_v1.VariableV1`: cfnb's Variable is the v1 graph variable
ResourceVariable = cfnb.Variable    # `resource_variable_ops.ResourceVariable`: the same read/assign semantics


class Session(cfnb.Session):
    """`session.Session` with TensorFlow's class-level `reset(target)`: a distributed master's reset, which
    a cfnb (in-process) session has nothing to do for."""

    @staticmethod
    def reset(target, containers=None, config=None):
        pass
