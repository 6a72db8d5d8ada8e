"""Running graphs: Session, the graph compiler, the tagged-token executor, traces."""
