"""pderepro.plotting."""
