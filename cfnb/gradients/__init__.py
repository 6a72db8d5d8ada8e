"""Reverse-mode gradients (control-flow gradients arrive with the gradients issue)."""
