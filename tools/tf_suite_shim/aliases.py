"""TensorFlow names that cfnb spells differently: the same objects under TensorFlow's other names."""
import cfnb
from cfnb.ops.array_ops import squeeze as squeeze_v2  # noqa: F401 - `array_ops.squeeze_v2`

VariableV1 = cfnb.Variable          # `variable_v1.VariableV1`: cfnb's Variable is the v1 graph variable
ResourceVariable = cfnb.Variable    # `resource_variable_ops.ResourceVariable`: the same read/assign semantics
