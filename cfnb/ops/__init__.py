"""Op definitions and their Python wrappers, control-flow builders included."""
