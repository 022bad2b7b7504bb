"""pderepro.training."""
