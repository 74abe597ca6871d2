"""Models of the evalsets app."""
