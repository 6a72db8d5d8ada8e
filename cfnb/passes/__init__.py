"""Graph-to-graph rewrites: lowering functional ops, pruning, partitioning."""
