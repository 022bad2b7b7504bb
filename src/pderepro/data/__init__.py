"""pderepro.data."""
