"""pderepro.evaluation."""
