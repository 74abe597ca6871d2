"""Models of the experiments app."""
