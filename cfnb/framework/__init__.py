"""Graph-building machinery: dtypes, shapes, nested structures, Graph/Operation/Tensor, the op registry."""
